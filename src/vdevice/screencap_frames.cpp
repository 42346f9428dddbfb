#include "vdevice/screencap_frames.hpp"

#include <spng.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/framebuffer.hpp"
#include "vdevice/screen_graph.hpp"

namespace adbwire::vdevice {
namespace {

constexpr std::size_t kPiece = 64 * 1024;

// A screen graph PNG decoded to RGBA once per capture (a few MiB), so raw screencap and
// framebuffer: show the same pixels as `screencap -p`.
std::optional<Frame> decode_png_file(const std::filesystem::path& path, std::string& error) {
  std::ifstream file(path, std::ios::binary);
  std::vector<std::uint8_t> png((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(0), spng_ctx_free);
  spng_ihdr ihdr{};
  std::size_t size = 0;
  auto pixels = std::make_shared<std::vector<std::uint8_t>>();
  if (ctx && !png.empty() && spng_set_png_buffer(ctx.get(), png.data(), png.size()) == 0 &&
      spng_get_ihdr(ctx.get(), &ihdr) == 0 &&
      spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size) == 0) {
    pixels->resize(size);
    if (spng_decode_image(ctx.get(), pixels->data(), size, SPNG_FMT_RGBA8, 0) == 0) {
      const std::size_t row_bytes = std::size_t{ihdr.width} * 4;
      return Frame{ihdr.width, ihdr.height,
                   [pixels, row_bytes](std::uint32_t y, std::span<std::uint8_t> row) {
                     std::memcpy(row.data(), pixels->data() + y * row_bytes, row_bytes);
                   },
                   path};
    }
  }
  error = "Failed to take screenshot: cannot decode " + path.string() + "\n";
  return std::nullopt;
}

// The secondary display: a dark panel with one light band, so a capture of it is told apart
// from the main display by size and content.
void secondary_row(std::uint32_t y, std::span<std::uint8_t> row) {
  const bool band = y >= kSecondaryHeight / 2 - 40 && y < kSecondaryHeight / 2 + 40;
  const std::uint8_t rgba[4] = {static_cast<std::uint8_t>(band ? 0xe0 : 0x20),
                                static_cast<std::uint8_t>(band ? 0xe0 : 0x28),
                                static_cast<std::uint8_t>(band ? 0xf0 : 0x30), 0xff};
  for (std::size_t x = 0; x + 4 <= row.size(); x += 4) std::memcpy(&row[x], rgba, 4);
}

// A header, then the frame's rows, a piece of about 64 KiB at a time.
class RowStream final : public ByteStream {
 public:
  RowStream(std::vector<std::uint8_t> header, Frame frame)
      : header_(std::move(header)), frame_(std::move(frame)) {}

  bool next(std::vector<std::uint8_t>& out) override {
    if (!header_.empty()) {
      out.insert(out.end(), header_.begin(), header_.end());
      header_.clear();
      return true;
    }
    if (next_row_ >= frame_.height) return false;
    const std::size_t row_bytes = std::size_t{frame_.width} * 4;
    const std::uint32_t rows =
        static_cast<std::uint32_t>(std::max<std::size_t>(1, kPiece / row_bytes));
    const std::uint32_t end = std::min(frame_.height, next_row_ + rows);
    for (; next_row_ < end; ++next_row_) {
      const std::size_t at = out.size();
      out.resize(at + row_bytes);
      frame_.rows(next_row_, std::span<std::uint8_t>(out).subspan(at, row_bytes));
    }
    return true;
  }

 private:
  std::vector<std::uint8_t> header_;
  Frame frame_;
  std::uint32_t next_row_ = 0;
};

class PngFrameStream final : public ByteStream {
 public:
  explicit PngFrameStream(Frame frame)
      : frame_(std::move(frame)), png_(frame_.width, frame_.height, frame_.rows) {}
  bool next(std::vector<std::uint8_t>& out) override { return png_.next(out); }

 private:
  Frame frame_;
  PngStream png_;
};

class FileStream final : public ByteStream {
 public:
  explicit FileStream(const std::filesystem::path& path) : file_(path, std::ios::binary) {}
  bool next(std::vector<std::uint8_t>& out) override {
    char buffer[kPiece];
    if (!file_.read(buffer, sizeof buffer) && file_.gcount() == 0) return false;
    out.insert(out.end(), buffer, buffer + file_.gcount());
    return true;
  }

 private:
  std::ifstream file_;
};

}  // namespace

std::uint32_t api_level(const DeviceContext& device) {
  const auto& props = device.properties();
  const auto it = props.find("ro.build.version.sdk");
  std::uint32_t level = 0;
  if (it != props.end())
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), level);
  return level;
}

std::optional<Frame> capture(DeviceContext& device, std::optional<std::uint64_t> display_id,
                             std::string& error) {
  const bool secondary = display_id == kSecondaryDisplayId && device.displays() > 1;
  if (display_id && *display_id != 0 && *display_id != kMainDisplayId && !secondary) {
    error = "Failed to take screenshot: no display with ID " + std::to_string(*display_id) +
            " (see \"dumpsys SurfaceFlinger --display-id\")\n";
    return std::nullopt;
  }
  if (secondary) return Frame{kSecondaryWidth, kSecondaryHeight, secondary_row, std::nullopt};
  ScreenGraph& screens = device.screens();
  if (auto file = screens.png_file()) return decode_png_file(*file, error);
  std::shared_ptr<const SampleScreen> picture = screens.picture();
  return Frame{
      SampleScreen::kWidth, SampleScreen::kHeight,
      [picture](std::uint32_t y, std::span<std::uint8_t> row) { picture->render_row(y, row); },
      std::nullopt};
}

std::unique_ptr<ByteStream> raw_stream(Frame frame, bool with_dataspace) {
  constexpr std::uint32_t kFormatRgba8888 = 1;
  constexpr std::uint32_t kColorSpaceSrgb = 1;
  std::vector<std::uint8_t> header;
  protocol::append_le32(header, frame.width);
  protocol::append_le32(header, frame.height);
  protocol::append_le32(header, kFormatRgba8888);
  if (with_dataspace) protocol::append_le32(header, kColorSpaceSrgb);
  return std::make_unique<RowStream>(std::move(header), std::move(frame));
}

std::unique_ptr<ByteStream> png_stream(Frame frame) {
  if (frame.png_file) return std::make_unique<FileStream>(*frame.png_file);
  return std::make_unique<PngFrameStream>(std::move(frame));
}

std::unique_ptr<ByteStream> framebuffer_stream(Frame frame, bool version2) {
  protocol::FramebufferHeader header;
  header.version = version2 ? 2 : 1;
  header.bpp = 32;
  header.color_space = version2 ? 1 : 0;  // sRGB
  header.size = frame.width * frame.height * 4;
  header.width = frame.width;
  header.height = frame.height;
  header.red = {0, 8};
  header.green = {8, 8};
  header.blue = {16, 8};
  header.alpha = {24, 8};
  return std::make_unique<RowStream>(protocol::encode_framebuffer_header(header), std::move(frame));
}

}  // namespace adbwire::vdevice
