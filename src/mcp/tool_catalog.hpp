// What each tool of `adbwire mcp` is, as tools/list shows it: name, title, description,
// input JSON Schema and behaviour hints. The code that runs them is device_tools.cpp.
#pragma once

#include "mcp/json_rpc.hpp"

namespace adbwire::mcp {

// Limits the tools state in their descriptions and enforce.
inline constexpr int kMaxImageSide = 2000;    // px; what model APIs accept per side
inline constexpr int kDefaultWaitMs = 10000;  // wait_for_text without timeout_ms
inline constexpr int kMaxWaitMs = 120000;     // wait_for_text / shell timeout_ms cap

// The tools/list array: every tool, with `shell` only when allow_shell. Every tool that acts
// on one device has an optional "device" property.
Json tool_definitions(bool allow_shell);

}  // namespace adbwire::mcp
