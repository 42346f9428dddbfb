// The system properties `getprop` prints. Pure: tested on real output
// (tests/unit/services/data/PROVENANCE.md). Internal.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/failure.hpp"

namespace adbwire::detail {

// `getprop` with no argument: one "[key]: [value]" per property, where a value may span lines (it
// ends at "]" and a line end, or at the last "]"); a '\r' ending a value is dropped. parse_error
// naming the byte offset and quoting the line when the output is not in that form.
std::map<std::string, std::string> parse_property_list(std::string_view getprop_output,
                                                       Failure& failure);

}  // namespace adbwire::detail
