// Reading uiautomator's bounds attribute, "[left,top][right,bottom]", into a Bounds: for the
// dump parser, the WebView merge and the virtual device's screens alike. Internal; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "adbwire/ui_node.hpp"

namespace adbwire::ui {

// Exactly "[L,T][R,B]" with four decimal 32-bit integers (a leading '-' allowed): no spaces,
// no '+', nothing before or after. nullopt for anything else, out-of-range numbers included.
// Empty or inverted rectangles are returned as written; Bounds::empty() tells them.
std::optional<Bounds> parse_bounds(std::string_view text) noexcept;

}  // namespace adbwire::ui
