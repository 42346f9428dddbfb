// Single values the device's tools print: a setting (`settings get`), the clock (`date +%s`), the
// display size (`wm size`). Pure: tested on real output where any was found
// (tests/unit/services/data/PROVENANCE.md). Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/failure.hpp"

namespace adbwire::detail {

// `settings get` output: the value without its line end; "" for "null", which is how the tool
// prints an unset key.
std::string parse_setting_value(std::string_view output);

// `date +%s` output: seconds since the epoch. parse_error quoting the output when it is not one
// whole number (a toolbox `date` that ignores the format prints a date instead).
std::chrono::system_clock::time_point parse_epoch_seconds(std::string_view output,
                                                          Failure& failure);

struct DisplaySize {
  std::int32_t width = 0;
  std::int32_t height = 0;
};

// `wm size` output: "Physical size: WxH", then "Override size: WxH" when `wm size WxH` set one,
// which is what apps get and so wins. nullopt when no line holds a size.
std::optional<DisplaySize> parse_display_size(std::string_view output);

}  // namespace adbwire::detail
