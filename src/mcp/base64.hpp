// Base64 (RFC 4648 section 4, with padding) for MCP image content.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace adbwire::mcp {

std::string base64_encode(std::span<const std::uint8_t> bytes);

}  // namespace adbwire::mcp
