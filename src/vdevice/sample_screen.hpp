// The screen the virtual device shows: a bundled uiautomator dump of a small demo app
// (sample_screen.xml) and the picture drawn from it for screencap.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::vdevice {

// The embedded dump, exactly as `uiautomator dump` writes it (one line, no trailing newline).
std::string_view sample_screen_xml() noexcept;

// Produces a byte stream piece by piece (bounded memory for multi-megabyte images).
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Appends the next piece (at most about 64 KiB) to out; false once the stream is done.
  virtual bool next(std::vector<std::uint8_t>& out) = 0;
};

// The demo screen drawn from the dump: each node's bounds as a filled or outlined rectangle
// on a 1080x2400 RGBA canvas. Immutable after construction; thread safe.
class SampleScreen {
 public:
  static constexpr std::uint32_t kWidth = 1080;
  static constexpr std::uint32_t kHeight = 2400;
  static constexpr std::uint32_t kDensity = 420;

  // The process-wide instance (built on first use from sample_screen_xml()).
  static const SampleScreen& instance();

  // Writes row y (kWidth * 4 bytes, RGBA) into row.
  void render_row(std::uint32_t y, std::span<std::uint8_t> row) const;

  // `screencap -p`: the PNG of the screen.
  std::unique_ptr<ByteStream> png() const;
  // `screencap`: 16-byte header (width, height, format 1 = RGBA_8888, colour space 1 = sRGB;
  // little-endian u32 each) then the pixels, as screencap writes on current Android.
  std::unique_ptr<ByteStream> raw() const;

  // The whole PNG in memory (about 10 MiB); for tests and callers that want one buffer.
  std::vector<std::uint8_t> png_bytes() const;

  struct Rect {
    std::uint32_t left, top, right, bottom;  // right/bottom exclusive, clipped to the screen
    std::uint32_t rgba;                      // 0xRRGGBBAA
    std::uint32_t border;                    // 0: filled, else outline thickness in pixels
  };
  explicit SampleScreen(std::vector<Rect> rects);
  const std::vector<Rect>& rects() const noexcept { return rects_; }

 private:
  std::vector<Rect> rects_;
};

// Parses a uiautomator dump into the rectangles SampleScreen draws, in document order.
// Nodes without parsable bounds are skipped.
std::vector<SampleScreen::Rect> layout_from_dump(std::string_view xml);

}  // namespace adbwire::vdevice
