// framebuffer(): the `framebuffer:` service, its header parsed by the sans-IO codec in
// protocol/ and its channel layout mapped back to the Android pixel format adbd described.
#include <algorithm>
#include <array>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/protocol/framebuffer.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/stream.hpp"
#include "base/failure.hpp"
#include "connection/bounded_output.hpp"

namespace adbwire {
namespace {

using protocol::FramebufferChannel;
using protocol::FramebufferHeader;

// adbd writes one of these layouts (framebuffer_service.cpp), one per screencap format.
struct Layout {
  PixelFormat format;
  std::uint32_t bpp;
  FramebufferChannel red, green, blue, alpha;
};
constexpr std::array<Layout, 5> kLayouts = {{
    {PixelFormat::rgba_8888, 32, {0, 8}, {8, 8}, {16, 8}, {24, 8}},
    {PixelFormat::rgbx_8888, 32, {0, 8}, {8, 8}, {16, 8}, {24, 0}},
    {PixelFormat::bgra_8888, 32, {16, 8}, {8, 8}, {0, 8}, {24, 8}},
    {PixelFormat::rgb_888, 24, {0, 8}, {8, 8}, {16, 8}, {24, 0}},
    {PixelFormat::rgb_565, 16, {11, 5}, {5, 6}, {0, 5}, {0, 0}},
}};

bool format_of(const FramebufferHeader& h, PixelFormat& format, detail::Failure& failure) {
  for (const Layout& l : kLayouts) {
    // An absent channel's offset means nothing; only its length is compared.
    const bool alpha_matches = l.alpha.length == 0 ? h.alpha.length == 0 : h.alpha == l.alpha;
    if (h.bpp == l.bpp && h.red == l.red && h.green == l.green && h.blue == l.blue &&
        alpha_matches) {
      format = l.format;
      return true;
    }
  }
  auto channel = [](const FramebufferChannel& c) {
    return std::to_string(c.offset) + "/" + std::to_string(c.length);
  };
  failure.set(errc::parse_error, "framebuffer: layout " + std::to_string(h.bpp) + " bpp, red " +
                                     channel(h.red) + ", green " + channel(h.green) + ", blue " +
                                     channel(h.blue) + ", alpha " + channel(h.alpha) +
                                     " is none of Android's screenshot formats");
  return false;
}

RawImage framebuffer_into(Device& device, Deadline deadline, detail::Failure& failure) {
  deadline = device.resolve(deadline);
  std::error_code error;
  Stream stream = device.open("framebuffer:", deadline, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  std::vector<std::uint8_t> received;
  FramebufferHeader header;
  std::size_t header_size = 0;
  std::string reason;
  std::array<std::uint8_t, 64 * 1024> buffer{};
  for (;;) {
    const std::size_t n = stream.read_some(buffer, deadline, error);
    if (error) {
      failure = detail::reported(error);
      return {};
    }
    if (n == 0) {
      failure.set(received.empty() ? errc::command_failed : errc::parse_error,
                  received.empty()
                      ? "the device closed framebuffer: without an image (adbd does this when its "
                        "screencap fails); try screencap_raw()"
                      : "framebuffer: ended inside its " + std::to_string(received.size()) +
                            "-byte header");
      return {};
    }
    received.insert(received.end(), buffer.begin(),
                    buffer.begin() + static_cast<std::ptrdiff_t>(n));
    const auto parsed = protocol::parse_framebuffer_header(received, header, header_size, reason);
    if (parsed == protocol::FramebufferParse::invalid) {
      failure.set(errc::parse_error, reason);
      return {};
    }
    if (parsed == protocol::FramebufferParse::ok) break;
  }
  if (header.version == 16) {
    // The ancient service sends each frame's pixels only after the host asks with one byte.
    const std::uint8_t request = 0;
    stream.write(std::span<const std::uint8_t>(&request, 1), deadline, error);
    if (error) {
      failure = detail::reported(error);
      return {};
    }
  }
  RawImage image;
  image.width = header.width;
  image.height = header.height;
  if (!format_of(header, image.format, failure)) return {};
  image.dataspace = header.color_space;
  if (header.size > device.output_limits().screenshot) {
    failure.set(errc::limit_exceeded,
                detail::over_limit_detail(
                    "framebuffer: (an image of " + std::to_string(header.size) + " bytes)",
                    device.output_limits(), &OutputLimits::screenshot));
    return {};
  }
  image.pixels.reserve(header.size);
  image.pixels.assign(received.begin() + static_cast<std::ptrdiff_t>(header_size),
                      received.begin() + static_cast<std::ptrdiff_t>(
                                             std::min(received.size(), header_size + header.size)));
  while (image.pixels.size() < header.size) {
    const std::size_t want = std::min(buffer.size(), header.size - image.pixels.size());
    const std::size_t n =
        stream.read_some(std::span<std::uint8_t>(buffer.data(), want), deadline, error);
    if (error) {
      failure = detail::reported(error);
      return {};
    }
    if (n == 0) {
      failure.set(errc::parse_error, "framebuffer: ended after " +
                                         std::to_string(image.pixels.size()) + " of " +
                                         std::to_string(header.size) + " pixel bytes");
      return {};
    }
    image.pixels.insert(image.pixels.end(), buffer.begin(),
                        buffer.begin() + static_cast<std::ptrdiff_t>(n));
  }
  return image;
}

}  // namespace

RawImage framebuffer(Device& device, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return framebuffer_into(device, deadline, f); });
}

RawImage framebuffer(Device& device, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return framebuffer_into(device, deadline, f); });
}

}  // namespace adbwire
