// Base64 (RFC 4648 section 4: the standard alphabet, '=' padding, no line breaks) through
// OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock: adbkey.pub lines, MCP screenshots (about a
// megabyte each), text for the ADB keyboard. Internal; safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::detail {

// 4 characters per 3 bytes, the last group padded with '='. Any size (inputs over INT_MAX
// bytes are encoded in pieces). Throws std::bad_alloc only.
std::string base64_encode(std::span<const std::uint8_t> bytes);

// Strict: the standard alphabet only, a length that is a multiple of 4, '=' only as the final
// one or two characters, and the unused bits of the last group zero (so each byte string has
// exactly one text). Whitespace, line breaks, the URL-safe alphabet or a missing '=' give
// nullopt, so damaged input is reported rather than half read. "" decodes to no bytes.
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text);

}  // namespace adbwire::detail
