#include "adbwire/screencap.hpp"

#include <spng.h>
#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/failure.hpp"
#include "connection/collected_output.hpp"

namespace adbwire {
namespace {

using detail::Failure;
using detail::or_code;
using detail::or_throw;

constexpr std::array<std::uint8_t, 8> kPngSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::string screencap_command(bool png, std::optional<std::uint64_t> display_id) {
  std::string command = png ? "screencap -p" : "screencap";
  if (display_id) command += " -d " + std::to_string(*display_id);
  return command;
}

// The first bytes of what the device printed, escaped for a message.
std::string quote_start(std::string_view bytes) {
  return "\"" + protocol::printable(bytes, 60) + "\"";
}

// Tightly packed 8-bit RGB (JPEG) or RGBA (PNG) pixels.
struct Pixels {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int channels = 4;
  std::vector<std::uint8_t> data;
};

Pixels to_rgba(const RawImage& image) {
  Pixels out{image.width, image.height, 4, {}};
  const std::size_t count = std::size_t{image.width} * image.height;
  out.data.resize(count * 4);
  const std::uint8_t* in = image.pixels.data();
  std::uint8_t* o = out.data.data();
  for (std::size_t i = 0; i < count; ++i, o += 4) {
    switch (image.format) {
      case PixelFormat::rgba_8888:
        std::memcpy(o, in, 4);
        in += 4;
        break;
      case PixelFormat::rgbx_8888:
        std::memcpy(o, in, 3);
        o[3] = 255;
        in += 4;
        break;
      case PixelFormat::bgra_8888:
        o[0] = in[2];
        o[1] = in[1];
        o[2] = in[0];
        o[3] = in[3];
        in += 4;
        break;
      case PixelFormat::rgb_888:
        std::memcpy(o, in, 3);
        o[3] = 255;
        in += 3;
        break;
      case PixelFormat::rgb_565: {
        const unsigned v = protocol::load_le16(in);
        o[0] = static_cast<std::uint8_t>((v >> 11 & 0x1f) * 255 / 31);
        o[1] = static_cast<std::uint8_t>((v >> 5 & 0x3f) * 255 / 63);
        o[2] = static_cast<std::uint8_t>((v & 0x1f) * 255 / 31);
        o[3] = 255;
        in += 2;
        break;
      }
    }
  }
  return out;
}

// Area-average downscale: each output pixel is the mean of the source pixels it covers, so
// thin text strokes fade instead of vanishing as they would with nearest-neighbour sampling.
Pixels scale_down(const Pixels& in, std::uint32_t width, std::uint32_t height) {
  Pixels out{width, height, in.channels, {}};
  out.data.resize(std::size_t{width} * height * static_cast<std::size_t>(in.channels));
  const auto c = static_cast<std::size_t>(in.channels);
  std::vector<std::uint32_t> sums(std::size_t{width} * c);
  std::vector<std::uint32_t> counts(width);
  for (std::uint32_t oy = 0; oy < height; ++oy) {
    const std::uint32_t y0 = static_cast<std::uint32_t>(std::uint64_t{oy} * in.height / height);
    const std::uint32_t y1 =
        std::max(y0 + 1, static_cast<std::uint32_t>(std::uint64_t{oy + 1} * in.height / height));
    std::fill(sums.begin(), sums.end(), 0);
    std::fill(counts.begin(), counts.end(), 0);
    for (std::uint32_t y = y0; y < y1; ++y) {
      const std::uint8_t* row = in.data.data() + std::size_t{y} * in.width * c;
      for (std::uint32_t ox = 0; ox < width; ++ox) {
        const std::uint32_t x0 = static_cast<std::uint32_t>(std::uint64_t{ox} * in.width / width);
        const std::uint32_t x1 =
            std::max(x0 + 1, static_cast<std::uint32_t>(std::uint64_t{ox + 1} * in.width / width));
        for (std::uint32_t x = x0; x < x1; ++x) {
          for (std::size_t k = 0; k < c; ++k) sums[ox * c + k] += row[x * c + k];
        }
        counts[ox] += x1 - x0;
      }
    }
    std::uint8_t* o = out.data.data() + std::size_t{oy} * width * c;
    for (std::uint32_t ox = 0; ox < width; ++ox) {
      for (std::size_t k = 0; k < c; ++k) {
        o[ox * c + k] = static_cast<std::uint8_t>((sums[ox * c + k] + counts[ox] / 2) / counts[ox]);
      }
    }
  }
  return out;
}

Pixels fit(const Pixels& in, std::uint32_t max_side) {
  const std::uint32_t longest = std::max(in.width, in.height);
  if (max_side == 0 || longest <= max_side) return in;
  const auto w = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(1, std::uint64_t{in.width} * max_side / longest));
  const auto h = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(1, std::uint64_t{in.height} * max_side / longest));
  return scale_down(in, w, h);
}

std::vector<std::uint8_t> encode_png(const Pixels& p, Failure& failure) {
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                          spng_ctx_free);
  if (!ctx) {
    failure.set(errc::io_error, "cannot create a PNG encoder (out of memory)");
    return {};
  }
  spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  // Speed over size: screenshots are encoded per agent step; zlib level 1 with the "sub"
  // filter keeps flat UI colours small at a fraction of the default's time.
  spng_set_option(ctx.get(), SPNG_IMG_COMPRESSION_LEVEL, 1);
  spng_set_option(ctx.get(), SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_SUB);
  spng_ihdr ihdr{};
  ihdr.width = p.width;
  ihdr.height = p.height;
  ihdr.bit_depth = 8;
  ihdr.color_type = p.channels == 4 ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA : SPNG_COLOR_TYPE_TRUECOLOR;
  spng_set_ihdr(ctx.get(), &ihdr);
  if (const int rc = spng_encode_image(ctx.get(), p.data.data(), p.data.size(), SPNG_FMT_PNG,
                                       SPNG_ENCODE_FINALIZE);
      rc != 0) {
    failure.set(errc::io_error, std::string("PNG encoding failed: ") + spng_strerror(rc));
    return {};
  }
  std::size_t size = 0;
  int rc = 0;
  std::unique_ptr<void, decltype(&std::free)> buffer(spng_get_png_buffer(ctx.get(), &size, &rc),
                                                     std::free);
  if (!buffer) {
    failure.set(errc::io_error, std::string("PNG encoding failed: ") + spng_strerror(rc));
    return {};
  }
  const auto* bytes = static_cast<const std::uint8_t*>(buffer.get());
  return {bytes, bytes + size};
}

std::vector<std::uint8_t> encode_jpeg(const Pixels& p, int quality, Failure& failure) {
  std::unique_ptr<void, decltype(&tjDestroy)> tj(tjInitCompress(), tjDestroy);
  if (!tj) {
    failure.set(errc::io_error, "cannot create a JPEG encoder (out of memory)");
    return {};
  }
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(tj.get(), p.data.data(), static_cast<int>(p.width), 0,
                             static_cast<int>(p.height), p.channels == 4 ? TJPF_RGBA : TJPF_RGB,
                             &out, &size, TJSAMP_420, quality, TJFLAG_FASTDCT);
  std::unique_ptr<unsigned char, decltype(&tjFree)> owned(out, tjFree);
  if (rc != 0) {
    failure.set(errc::io_error, std::string("JPEG encoding failed: ") + tjGetErrorStr2(tj.get()));
    return {};
  }
  return {out, out + size};
}

Pixels decode_png(const std::vector<std::uint8_t>& png, Failure& failure) {
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(0), spng_ctx_free);
  if (!ctx) {
    failure.set(errc::io_error, "cannot create a PNG decoder (out of memory)");
    return {};
  }
  spng_set_png_buffer(ctx.get(), png.data(), png.size());
  spng_ihdr ihdr{};
  std::size_t size = 0;
  if (spng_get_ihdr(ctx.get(), &ihdr) != 0 ||
      spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size) != 0) {
    failure.set(errc::parse_error, "the device's screencap -p output is not a readable PNG");
    return {};
  }
  Pixels p{ihdr.width, ihdr.height, 4, std::vector<std::uint8_t>(size)};
  if (const int rc = spng_decode_image(ctx.get(), p.data.data(), size, SPNG_FMT_RGBA8, 0);
      rc != 0) {
    failure.set(errc::parse_error,
                std::string("the device's PNG does not decode: ") + spng_strerror(rc));
    return {};
  }
  return p;
}

EncodedImage encode_pixels(Pixels pixels, const ScreenshotOptions& options, Failure& failure) {
  if (options.jpeg_quality < 1 || options.jpeg_quality > 100) {
    failure.set(errc::invalid_argument,
                "jpeg_quality must be 1..100, not " + std::to_string(options.jpeg_quality));
    return {};
  }
  if (options.format == ImageFormat::jpeg && pixels.channels == 4) {
    // JPEG has no alpha: drop it once rather than per attempt.
    Pixels rgb{pixels.width, pixels.height, 3,
               std::vector<std::uint8_t>(std::size_t{pixels.width} * pixels.height * 3)};
    for (std::size_t i = 0, n = std::size_t{pixels.width} * pixels.height; i < n; ++i)
      std::memcpy(&rgb.data[i * 3], &pixels.data[i * 4], 3);
    pixels = std::move(rgb);
  }
  Pixels current = fit(pixels, options.max_side);
  int quality = options.jpeg_quality;
  for (int attempt = 0; attempt < 16; ++attempt) {
    EncodedImage image{options.format,
                       current.width,
                       current.height,
                       options.format == ImageFormat::png ? encode_png(current, failure)
                                                          : encode_jpeg(current, quality, failure),
                       pixels.width,
                       pixels.height};
    if (failure) return {};
    if (options.max_bytes == 0 || image.bytes.size() <= options.max_bytes) return image;
    // Too big: JPEG first gives up quality (down to 50), then both give up pixels (3/4 a side).
    if (options.format == ImageFormat::jpeg && quality > 50) {
      quality = std::max(50, quality - 15);
      continue;
    }
    if (current.width < 16 || current.height < 16) break;
    current = scale_down(current, current.width * 3 / 4, current.height * 3 / 4);
  }
  failure.set(errc::command_failed, "cannot bring the screenshot under " +
                                        std::to_string(options.max_bytes) +
                                        " bytes; raise max_bytes or choose JPEG");
  return {};
}

// The image when a 16-byte (Android 10+) or 12-byte header sits at `at`: only one of the two
// makes the pixel count add up.
std::optional<RawImage> raw_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  if (bytes.size() - at < 12) return std::nullopt;
  const std::uint8_t* p = bytes.data() + at;
  RawImage image;
  image.width = protocol::load_le32(p);
  image.height = protocol::load_le32(p + 4);
  image.format = static_cast<PixelFormat>(protocol::load_le32(p + 8));
  const std::uint64_t pixels =
      std::uint64_t{image.width} * image.height * bytes_per_pixel(image.format);
  if (pixels == 0) return std::nullopt;
  for (const std::size_t header : {std::size_t{16}, std::size_t{12}}) {
    if (bytes.size() - at >= header && bytes.size() - at - header == pixels) {
      if (header == 16) image.dataspace = protocol::load_le32(p + 12);
      image.pixels.assign(p + header, bytes.data() + bytes.size());
      return image;
    }
  }
  return std::nullopt;
}

RawImage parse_raw(std::span<const std::uint8_t> bytes, Failure& failure) {
  // Text before the header (a stderr warning merged in by exec:) ends in a newline: try the
  // start, then just past each newline of the first few KiB.
  constexpr std::size_t kMaxJunk = 4096;
  const std::uint8_t* begin = bytes.data();
  const std::uint8_t* limit = begin + std::min(bytes.size(), kMaxJunk);
  std::size_t at = 0;
  for (;;) {
    if (auto image = raw_at(bytes, at)) return std::move(*image);
    const std::uint8_t* newline = std::find(begin + at, limit, '\n');
    if (newline == limit) break;
    at = static_cast<std::size_t>(newline - begin) + 1;
  }
  const std::string start(begin, limit);
  failure.set(errc::parse_error,
              "raw screencap output (" + std::to_string(bytes.size()) +
                  " bytes) is not a 12- or 16-byte header and its pixels; it starts " +
                  quote_start(start));
  return {};
}

RawImage screencap_raw_into(Device& device, std::optional<std::uint64_t> display_id,
                            Deadline deadline, Failure& failure) {
  const std::string output = detail::exec_output(device, screencap_command(false, display_id),
                                                 &OutputLimits::screenshot, deadline, failure);
  if (failure) return {};
  return parse_raw({reinterpret_cast<const std::uint8_t*>(output.data()), output.size()}, failure);
}

// Streams `screencap -p`: bytes before the PNG signature are held (bounded: a warning line,
// not an image) until the signature shows; from then on chunks pass straight through. A device
// printing 64 KiB without one fails there, its stream closed; so does a handler that sets
// failure (a bound it keeps).
void screencap_png_into(Device& device, const OutputHandler& on_chunk,
                        std::optional<std::uint64_t> display_id, Deadline deadline,
                        Failure& failure) {
  std::vector<std::uint8_t> prefix;
  bool started = false;
  detail::exec_into(
      device, screencap_command(true, display_id),
      [&](std::span<const std::uint8_t> chunk) {
        if (started) {
          on_chunk(chunk);
          return;
        }
        if (failure) return;
        prefix.insert(prefix.end(), chunk.begin(), chunk.end());
        const auto at =
            std::search(prefix.begin(), prefix.end(), kPngSignature.begin(), kPngSignature.end());
        if (at != prefix.end()) {
          started = true;
          on_chunk(
              std::span<const std::uint8_t>(&*at, static_cast<std::size_t>(prefix.end() - at)));
          prefix.clear();
        } else if (prefix.size() > 64 * 1024) {
          failure.set(errc::parse_error,
                      "screencap -p printed 64 KiB without a PNG signature; it starts " +
                          quote_start(std::string(prefix.begin(), prefix.end())));
          prefix = {};
        }
      },
      deadline, failure);
  if (!failure && !started) {
    failure.set(errc::parse_error, "screencap -p gave no PNG; it printed " +
                                       quote_start(std::string(prefix.begin(), prefix.end())));
  }
}

bool check_raw(const RawImage& image, Failure& failure) {
  const std::size_t bpp = bytes_per_pixel(image.format);
  if (bpp == 0 || image.pixels.size() != std::size_t{image.width} * image.height * bpp ||
      image.width == 0 || image.height == 0) {
    failure.set(errc::invalid_argument, "raw image " + std::to_string(image.width) + "x" +
                                            std::to_string(image.height) + " does not match its " +
                                            std::to_string(image.pixels.size()) + " pixel bytes");
    return false;
  }
  return true;
}

EncodedImage encode_raw(const RawImage& image, const ScreenshotOptions& options, Failure& failure) {
  if (!check_raw(image, failure)) return {};
  return encode_pixels(to_rgba(image), options, failure);
}

RawImage rgba_of(const RawImage& image, Failure& failure) {
  if (!check_raw(image, failure)) return {};
  Pixels p = to_rgba(image);
  return {p.width, p.height, PixelFormat::rgba_8888, image.dataspace, std::move(p.data)};
}

EncodedImage screenshot_into(Device& device, const ScreenshotOptions& options, Deadline deadline,
                             Failure& failure) {
  if (options.encode_on_host) {
    const RawImage raw = screencap_raw_into(device, options.display_id, deadline, failure);
    return failure ? EncodedImage{} : encode_raw(raw, options, failure);
  }
  std::vector<std::uint8_t> png;
  const std::size_t limit = device.output_limits().screenshot;
  screencap_png_into(
      device,
      [&](std::span<const std::uint8_t> chunk) {
        if (failure) return;
        if (chunk.size() > limit - png.size()) {
          failure.set(errc::limit_exceeded,
                      detail::over_limit_detail("screencap -p", device.output_limits(),
                                                &OutputLimits::screenshot));
          return;
        }
        png.insert(png.end(), chunk.begin(), chunk.end());
      },
      options.display_id, deadline, failure);
  if (failure) return {};
  const bool as_is = options.format == ImageFormat::png && options.max_side == 0 &&
                     (options.max_bytes == 0 || png.size() <= options.max_bytes);
  if (!as_is) {
    Pixels pixels = decode_png(png, failure);
    return failure ? EncodedImage{} : encode_pixels(std::move(pixels), options, failure);
  }
  // The device's PNG unchanged: read its size from the IHDR chunk.
  EncodedImage image{ImageFormat::png, 0, 0, std::move(png)};
  if (image.bytes.size() >= 24) {
    image.width = protocol::load_be32(image.bytes.data() + 16);
    image.height = protocol::load_be32(image.bytes.data() + 20);
  }
  image.screen_width = image.width;
  image.screen_height = image.height;
  return image;
}

}  // namespace

std::size_t bytes_per_pixel(PixelFormat format) noexcept {
  switch (format) {
    case PixelFormat::rgba_8888:
    case PixelFormat::rgbx_8888:
    case PixelFormat::bgra_8888:
      return 4;
    case PixelFormat::rgb_888:
      return 3;
    case PixelFormat::rgb_565:
      return 2;
  }
  return 0;
}

std::string_view EncodedImage::mime_type() const noexcept {
  return format == ImageFormat::png ? "image/png" : "image/jpeg";
}

RawImage screencap_raw(Device& device, std::optional<std::uint64_t> display_id, Deadline deadline) {
  return or_throw([&](Failure& f) { return screencap_raw_into(device, display_id, deadline, f); });
}

RawImage screencap_raw(Device& device, std::optional<std::uint64_t> display_id, Deadline deadline,
                       std::error_code& error) {
  return or_code(error,
                 [&](Failure& f) { return screencap_raw_into(device, display_id, deadline, f); });
}

void screencap_png(Device& device, const OutputHandler& on_chunk,
                   std::optional<std::uint64_t> display_id, Deadline deadline) {
  or_throw([&](Failure& f) { screencap_png_into(device, on_chunk, display_id, deadline, f); });
}

void screencap_png(Device& device, const OutputHandler& on_chunk,
                   std::optional<std::uint64_t> display_id, Deadline deadline,
                   std::error_code& error) {
  or_code(error,
          [&](Failure& f) { screencap_png_into(device, on_chunk, display_id, deadline, f); });
}

RawImage parse_raw_screencap(std::span<const std::uint8_t> output) {
  return or_throw([&](Failure& f) { return parse_raw(output, f); });
}

RawImage parse_raw_screencap(std::span<const std::uint8_t> output, std::error_code& error) {
  return or_code(error, [&](Failure& f) { return parse_raw(output, f); });
}

RawImage to_rgba8888(const RawImage& image) {
  return or_throw([&](Failure& f) { return rgba_of(image, f); });
}

RawImage to_rgba8888(const RawImage& image, std::error_code& error) {
  return or_code(error, [&](Failure& f) { return rgba_of(image, f); });
}

EncodedImage encode(const RawImage& image, const ScreenshotOptions& options) {
  return or_throw([&](Failure& f) { return encode_raw(image, options, f); });
}

EncodedImage encode(const RawImage& image, const ScreenshotOptions& options,
                    std::error_code& error) {
  return or_code(error, [&](Failure& f) { return encode_raw(image, options, f); });
}

EncodedImage screenshot(Device& device, const ScreenshotOptions& options, Deadline deadline) {
  return or_throw([&](Failure& f) { return screenshot_into(device, options, deadline, f); });
}

EncodedImage screenshot(Device& device, const ScreenshotOptions& options, Deadline deadline,
                        std::error_code& error) {
  return or_code(error, [&](Failure& f) { return screenshot_into(device, options, deadline, f); });
}

}  // namespace adbwire
