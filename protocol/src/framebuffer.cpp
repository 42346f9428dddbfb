#include "adbwire/protocol/framebuffer.hpp"

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

constexpr std::uint32_t kLargestSide = 16384;

bool channel_fits(const FramebufferChannel& c, std::uint32_t bpp) {
  return c.length <= 8 && c.offset <= bpp && c.length <= bpp - c.offset;
}

}  // namespace

std::size_t framebuffer_header_size(std::uint32_t version) noexcept {
  switch (version) {
    case 1:
      return 13 * 4;
    case 2:
      return 14 * 4;
    case 16:
      return 4 * 4;
    default:
      return 0;
  }
}

FramebufferParse parse_framebuffer_header(std::span<const std::uint8_t> bytes,
                                          FramebufferHeader& header, std::size_t& header_size,
                                          std::string& reason) {
  if (bytes.size() < 4) return FramebufferParse::need_more;
  FramebufferHeader h;
  h.version = load_le32(bytes.data());
  const std::size_t needed = framebuffer_header_size(h.version);
  if (needed == 0) {
    reason = "framebuffer header version " + std::to_string(h.version) +
             " is not one adbd sends (1, 2 or the ancient 16)";
    return FramebufferParse::invalid;
  }
  if (bytes.size() < needed) return FramebufferParse::need_more;
  const std::uint8_t* p = bytes.data() + 4;
  auto next = [&p] {
    const std::uint32_t v = load_le32(p);
    p += 4;
    return v;
  };
  if (h.version == 16) {
    // The ancient header: the version word is the depth, and the format is always RGB565.
    h.bpp = 16;
    h.size = next();
    h.width = next();
    h.height = next();
    h.red = {11, 5};
    h.green = {5, 6};
    h.blue = {0, 5};
  } else {
    h.bpp = next();
    if (h.version == 2) h.color_space = next();
    h.size = next();
    h.width = next();
    h.height = next();
    h.red = {next(), next()};
    h.blue = {next(), next()};
    h.green = {next(), next()};
    h.alpha = {next(), next()};
  }
  if (h.bpp != 16 && h.bpp != 24 && h.bpp != 32) {
    reason = "framebuffer bpp " + std::to_string(h.bpp) + " is not 16, 24 or 32";
    return FramebufferParse::invalid;
  }
  if (h.width == 0 || h.height == 0 || h.width > kLargestSide || h.height > kLargestSide) {
    reason = "framebuffer size " + std::to_string(h.width) + "x" + std::to_string(h.height) +
             " is empty or larger than " + std::to_string(kLargestSide) + " pixels a side";
    return FramebufferParse::invalid;
  }
  const std::uint64_t expected = std::uint64_t{h.width} * h.height * (h.bpp / 8);
  if (h.size != expected) {
    reason = "framebuffer says " + std::to_string(h.size) + " pixel bytes but " +
             std::to_string(h.width) + "x" + std::to_string(h.height) + " at " +
             std::to_string(h.bpp) + " bpp is " + std::to_string(expected);
    return FramebufferParse::invalid;
  }
  for (const FramebufferChannel* c : {&h.red, &h.green, &h.blue, &h.alpha}) {
    if (!channel_fits(*c, h.bpp)) {
      reason = "framebuffer channel (offset " + std::to_string(c->offset) + ", length " +
               std::to_string(c->length) + ") does not fit in " + std::to_string(h.bpp) + " bits";
      return FramebufferParse::invalid;
    }
  }
  header = h;
  header_size = needed;
  return FramebufferParse::ok;
}

std::vector<std::uint8_t> encode_framebuffer_header(const FramebufferHeader& h) {
  std::vector<std::uint8_t> out;
  out.reserve(framebuffer_header_size(h.version));
  append_le32(out, h.version);
  if (h.version == 16) {
    append_le32(out, h.size);
    append_le32(out, h.width);
    append_le32(out, h.height);
    return out;
  }
  append_le32(out, h.bpp);
  if (h.version == 2) append_le32(out, h.color_space);
  for (std::uint32_t v :
       {h.size, h.width, h.height, h.red.offset, h.red.length, h.blue.offset, h.blue.length,
        h.green.offset, h.green.length, h.alpha.offset, h.alpha.length})
    append_le32(out, v);
  return out;
}

}  // namespace adbwire::protocol
