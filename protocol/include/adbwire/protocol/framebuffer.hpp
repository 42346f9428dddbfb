// The header the `framebuffer:` service sends before the raw pixels (AOSP
// daemon/framebuffer_service.cpp; DDMS_RAWIMAGE_VERSION 1 and 2, and the ancient 16-byte form).
// Sans-IO: parses bytes already received; see protocol/framebuffer.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace adbwire::protocol {

// Where one colour channel sits in a pixel, in bits from the least significant end.
struct FramebufferChannel {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;

  bool operator==(const FramebufferChannel&) const = default;
};

struct FramebufferHeader {
  std::uint32_t version = 2;      // 1, 2, or 16 (the ancient header: depth 16, RGB565)
  std::uint32_t bpp = 32;         // bits per pixel: 16, 24 or 32
  std::uint32_t color_space = 0;  // version 2 only: 0 unknown, 1 sRGB, 2 Display P3
  std::uint32_t size = 0;         // pixel bytes that follow the header: width*height*bpp/8
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  FramebufferChannel red, blue, green, alpha;  // wire order: red, blue, green, alpha

  bool operator==(const FramebufferHeader&) const = default;
};

enum class FramebufferParse {
  ok,         // header filled; header_size bytes were used
  need_more,  // not enough bytes yet for this version's header
  invalid,    // not a header adbd sends; reason says why
};

// Bytes of the header for `version` (0 for an unknown version).
std::size_t framebuffer_header_size(std::uint32_t version) noexcept;

// Parses the header at the start of bytes (all fields little-endian u32). Rejects unknown
// versions, bpp other than 16/24/32, an empty or over 16384-pixel side, a size that is not
// width*height*bpp/8, and channels that do not fit in bpp bits.
FramebufferParse parse_framebuffer_header(std::span<const std::uint8_t> bytes,
                                          FramebufferHeader& header, std::size_t& header_size,
                                          std::string& reason);

// The bytes adbd would send for header (what the virtual device serves; tests round-trip).
std::vector<std::uint8_t> encode_framebuffer_header(const FramebufferHeader& header);

}  // namespace adbwire::protocol
