// Screenshots: the device's own `screencap -p` PNG streamed over one exec stream, or raw
// `screencap` pixels encoded on the host (PNG or JPEG, scaled to a longest side and a byte
// budget) — the form agents and model APIs want. No temporary file on the device or the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

enum class ImageFormat { png, jpeg };

// Android's PixelFormat values, as raw `screencap` reports them.
enum class PixelFormat : std::uint32_t {
  rgba_8888 = 1,
  rgbx_8888 = 2,
  rgb_888 = 3,
  rgb_565 = 4,
  bgra_8888 = 5,
};

// Bytes per pixel of format (0 for a value Android does not use for screenshots).
std::size_t bytes_per_pixel(PixelFormat format) noexcept;

// Uncompressed pixels, rows top to bottom with no padding.
struct RawImage {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  PixelFormat format = PixelFormat::rgba_8888;
  std::uint32_t dataspace =
      0;  // colour space of Android 10+ headers (1 sRGB, 2 Display P3); 0 when absent
  std::vector<std::uint8_t> pixels;
};

struct ScreenshotOptions {
  ImageFormat format = ImageFormat::png;
  int jpeg_quality = 80;       // 1..100
  std::uint32_t max_side = 0;  // scale down so the longer side is at most this (0: keep)
  std::size_t max_bytes = 0;   // lower JPEG quality, then scale down, until under (0: no cap)
  std::optional<std::uint64_t> display_id;  // screencap -d, for multi-display devices
  // true: raw screencap, encoded here (the phone skips its slow PNG compression); false: the
  // device's own `screencap -p` PNG, re-encoded here only when scaling, JPEG or a cap asks.
  bool encode_on_host = true;
};

struct EncodedImage {
  ImageFormat format = ImageFormat::png;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> bytes;
  // The screen's size before scaling (equal to width and height when not scaled): a point at
  // (x, y) of the image is at (x * screen_width / width, y * screen_height / height) on it.
  std::uint32_t screen_width = 0;
  std::uint32_t screen_height = 0;
  // "image/png" or "image/jpeg".
  std::string_view mime_type() const noexcept;
};

// Takes a screenshot as options say. Errors: invalid_argument (quality out of 1..100),
// parse_error (the device's output is not a screencap image: the message quotes its start),
// command_failed (the image cannot be brought under max_bytes), and the Device errors.
EncodedImage screenshot(Device& device, const ScreenshotOptions& options = {},
                        Deadline deadline = kDefaultDeadline);
EncodedImage screenshot(Device& device, const ScreenshotOptions& options, Deadline deadline,
                        std::error_code& error);

// Raw `screencap` (12-byte header before Android 10, 16 bytes with the dataspace after).
// Text lines before the header (the multiple-displays warning of Android 12+, which exec:
// merges in from stderr) are skipped. Errors: parse_error (sizes that do not add up, unknown
// format: the message quotes the output's start), and the Device errors.
RawImage screencap_raw(Device& device, std::optional<std::uint64_t> display_id = {},
                       Deadline deadline = kDefaultDeadline);
RawImage screencap_raw(Device& device, std::optional<std::uint64_t> display_id, Deadline deadline,
                       std::error_code& error);

// The `framebuffer:` service (adbd runs screencap itself and describes the pixels with a
// header of version 2, 1 or the ancient 16-byte form). format comes from the header's channel
// layout; dataspace is its colour space (0 unknown, 1 sRGB, 2 Display P3), as in raw screencap.
// Errors: command_failed (the device closed the stream without an image), parse_error (a header
// adbd does not send, a layout that is none of the formats above, or the pixels end early),
// and the Device errors. The deadline covers the whole call.
RawImage framebuffer(Device& device, Deadline deadline = kDefaultDeadline);
RawImage framebuffer(Device& device, Deadline deadline, std::error_code& error);

// `screencap -p` streamed: on_chunk gets the PNG piece by piece from its signature on (any
// junk a device prints before it, such as a warning line, is dropped). Errors: parse_error
// when no PNG signature arrives, and the Device errors.
void screencap_png(Device& device, const OutputHandler& on_chunk,
                   std::optional<std::uint64_t> display_id = {},
                   Deadline deadline = kDefaultDeadline);
void screencap_png(Device& device, const OutputHandler& on_chunk,
                   std::optional<std::uint64_t> display_id, Deadline deadline,
                   std::error_code& error);

// Host side only: parses raw `screencap` output captured elsewhere (`adb exec-out screencap >
// FILE`), as screencap_raw does. Errors: parse_error.
RawImage parse_raw_screencap(std::span<const std::uint8_t> output);
RawImage parse_raw_screencap(std::span<const std::uint8_t> output, std::error_code& error);

// Host side only: the pixels as rgba_8888 (formats without alpha become opaque). Errors:
// invalid_argument (pixels that do not match the size and format).
RawImage to_rgba8888(const RawImage& image);
RawImage to_rgba8888(const RawImage& image, std::error_code& error);

// Host side only: scales (area average) and encodes raw pixels as options say (format,
// quality, max_side, max_bytes). Errors as screenshot().
EncodedImage encode(const RawImage& image, const ScreenshotOptions& options);
EncodedImage encode(const RawImage& image, const ScreenshotOptions& options,
                    std::error_code& error);

}  // namespace adbwire
