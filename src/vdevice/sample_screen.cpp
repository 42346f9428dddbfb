#include "vdevice/sample_screen.hpp"

#include <algorithm>
#include <pugixml.hpp>
#include <utility>

#include "adbwire/protocol/bytes.hpp"
#include "ui/bounds.hpp"
#include "vdevice/png.hpp"

namespace adbwire::vdevice {
namespace {

// Material-like palette, 0xRRGGBBAA.
constexpr std::uint32_t kBackground = 0xfef7ffff;
constexpr std::uint32_t kPrimary = 0x6750a4ff;
constexpr std::uint32_t kStatusBar = 0x4f378bff;
constexpr std::uint32_t kNavigationBar = 0xf3edf7ff;
constexpr std::uint32_t kOnSurface = 0x1d1b20ff;
constexpr std::uint32_t kOnPrimary = 0xffffffff;
constexpr std::uint32_t kOutline = 0x79747eff;
constexpr std::uint32_t kOutlineVariant = 0xcac4d0ff;
constexpr std::uint32_t kHint = 0x938f99ff;
constexpr std::uint32_t kDivider = 0xe7e0ecff;
// Text is drawn as a bar: this many pixels per character, this tall.
constexpr std::uint32_t kCharWidth = 22;
constexpr std::uint32_t kTextHeight = 36;

struct Box {
  std::uint32_t left = 0, top = 0, right = 0, bottom = 0;
  std::uint32_t width() const { return right - left; }
  std::uint32_t height() const { return bottom - top; }
};

// A node's bounds clipped to the screen; false when unreadable or nothing of it is on screen.
bool parse_box(const char* text, Box& box) {
  const std::optional<ui::Bounds> bounds = ui::parse_bounds(text);
  if (!bounds) return false;
  auto clip = [](int v, std::uint32_t max) {
    return static_cast<std::uint32_t>(std::clamp(v, 0, static_cast<int>(max)));
  };
  box = {clip(bounds->left, SampleScreen::kWidth), clip(bounds->top, SampleScreen::kHeight),
         clip(bounds->right, SampleScreen::kWidth), clip(bounds->bottom, SampleScreen::kHeight)};
  return box.right > box.left && box.bottom > box.top;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

class Painter {
 public:
  explicit Painter(std::vector<SampleScreen::Rect>& rects) : rects_(rects) {}

  void fill(Box b, std::uint32_t rgba) { add(b, rgba, 0); }
  void outline(Box b, std::uint32_t rgba, std::uint32_t thickness) { add(b, rgba, thickness); }

  // A bar standing for a line of text, `chars` long, vertically centred in b.
  void text(Box b, std::size_t chars, std::uint32_t rgba, std::uint32_t padding, bool centred) {
    if (chars == 0 || b.width() <= 2 * padding) return;
    std::uint32_t width = std::min<std::uint32_t>(b.width() - 2 * padding,
                                                  static_cast<std::uint32_t>(chars) * kCharWidth);
    std::uint32_t height = std::min(b.height(), kTextHeight);
    std::uint32_t left = centred ? b.left + (b.width() - width) / 2 : b.left + padding;
    std::uint32_t top = b.top + (b.height() - height) / 2;
    fill({left, top, left + width, top + height}, rgba);
  }

 private:
  void add(Box b, std::uint32_t rgba, std::uint32_t border) {
    if (b.right > b.left && b.bottom > b.top)
      rects_.push_back({b.left, b.top, b.right, b.bottom, rgba, border});
  }
  std::vector<SampleScreen::Rect>& rects_;
};

void paint_node(const pugi::xml_node& node, Painter& paint) {
  Box b;
  if (!parse_box(node.attribute("bounds").value(), b)) return;
  std::string_view cls = node.attribute("class").value();
  cls = cls.substr(cls.rfind('.') == std::string_view::npos ? 0 : cls.rfind('.') + 1);
  std::string_view id = node.attribute("resource-id").value();
  std::size_t chars = std::string_view(node.attribute("text").value()).size();

  if (ends_with(id, "statusBarBackground")) {
    paint.fill(b, kStatusBar);
  } else if (ends_with(id, "navigationBarBackground")) {
    paint.fill(b, kNavigationBar);
  } else if (ends_with(id, "toolbar")) {
    paint.fill(b, kPrimary);
  } else if (cls == "Button") {
    paint.fill(b, kPrimary);
    paint.text(b, chars, kOnPrimary, 16, true);
  } else if (cls == "EditText") {
    paint.fill(b, kOnPrimary);
    paint.outline(b, kOutline, 3);
    paint.text(b, chars, kHint, 24, false);
  } else if (cls == "CheckBox") {
    constexpr std::uint32_t kBox = 54;
    std::uint32_t top = b.top + (b.height() - std::min(b.height(), kBox)) / 2;
    Box box{b.left + 12, top, std::min(b.right, b.left + 12 + kBox),
            std::min(b.bottom, top + kBox)};
    if (node.attribute("checked").as_bool()) {
      paint.fill(box, kPrimary);
    } else {
      paint.outline(box, kPrimary, 5);
    }
    paint.text({box.right, b.top, b.right, b.bottom}, chars, kOnSurface, 24, false);
  } else if (cls == "ImageButton" || cls == "ImageView") {
    // Three dots, as an overflow menu icon.
    std::uint32_t cx = b.left + b.width() / 2;
    std::uint32_t cy = b.top + b.height() / 2;
    for (int i = -1; i <= 1; ++i) {
      std::uint32_t y = static_cast<std::uint32_t>(static_cast<int>(cy) + i * 20);
      paint.fill({cx - 6, y - 6, cx + 6, y + 6}, kOnPrimary);
    }
  } else if (cls == "TextView") {
    paint.text(b, chars, ends_with(id, "title") ? kOnPrimary : kOnSurface, 0, false);
  } else if (cls == "RecyclerView" || cls == "ListView" || cls == "ScrollView") {
    paint.outline(b, kOutlineVariant, 2);
  } else if (node.attribute("clickable").as_bool()) {
    paint.fill({b.left, b.bottom - std::min(b.height(), 2u), b.right, b.bottom}, kDivider);
  }
  for (const pugi::xml_node& child : node.children("node")) paint_node(child, paint);
}

void put_pixel_run(std::span<std::uint8_t> row, std::uint32_t from, std::uint32_t to,
                   std::uint32_t rgba) {
  for (std::uint32_t x = from; x < to; ++x) {
    row[x * 4] = static_cast<std::uint8_t>(rgba >> 24);
    row[x * 4 + 1] = static_cast<std::uint8_t>(rgba >> 16);
    row[x * 4 + 2] = static_cast<std::uint8_t>(rgba >> 8);
    row[x * 4 + 3] = static_cast<std::uint8_t>(rgba);
  }
}

class PngByteStream final : public ByteStream {
 public:
  explicit PngByteStream(const SampleScreen& screen)
      : png_(SampleScreen::kWidth, SampleScreen::kHeight,
             [&screen](std::uint32_t y, std::span<std::uint8_t> row) {
               screen.render_row(y, row);
             }) {}
  bool next(std::vector<std::uint8_t>& out) override { return png_.next(out); }

 private:
  PngStream png_;
};

class RawByteStream final : public ByteStream {
 public:
  explicit RawByteStream(const SampleScreen& screen) : screen_(screen) {}
  bool next(std::vector<std::uint8_t>& out) override {
    constexpr std::uint32_t kRowBytes = SampleScreen::kWidth * 4;
    constexpr std::uint32_t kRowsPerPiece = 64 * 1024 / kRowBytes;
    if (!header_sent_) {
      constexpr std::uint32_t kFormatRgba8888 = 1;
      constexpr std::uint32_t kColorSpaceSrgb = 1;
      protocol::append_le32(out, SampleScreen::kWidth);
      protocol::append_le32(out, SampleScreen::kHeight);
      protocol::append_le32(out, kFormatRgba8888);
      protocol::append_le32(out, kColorSpaceSrgb);
      header_sent_ = true;
      return true;
    }
    if (next_row_ == SampleScreen::kHeight) return false;
    std::uint32_t end = std::min(SampleScreen::kHeight, next_row_ + kRowsPerPiece);
    for (; next_row_ < end; ++next_row_) {
      std::size_t at = out.size();
      out.resize(at + kRowBytes);
      screen_.render_row(next_row_, std::span<std::uint8_t>(out).subspan(at, kRowBytes));
    }
    return true;
  }

 private:
  const SampleScreen& screen_;
  bool header_sent_ = false;
  std::uint32_t next_row_ = 0;
};

}  // namespace

std::vector<SampleScreen::Rect> layout_from_dump(std::string_view xml) {
  std::vector<SampleScreen::Rect> rects;
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return rects;
  Painter paint(rects);
  for (const pugi::xml_node& node : doc.child("hierarchy").children("node"))
    paint_node(node, paint);
  return rects;
}

SampleScreen::SampleScreen(std::vector<Rect> rects) : rects_(std::move(rects)) {}

const SampleScreen& SampleScreen::instance() {
  static const SampleScreen screen(layout_from_dump(sample_screen_xml()));
  return screen;
}

void SampleScreen::render_row(std::uint32_t y, std::span<std::uint8_t> row) const {
  put_pixel_run(row, 0, kWidth, kBackground);
  for (const Rect& r : rects_) {
    if (y < r.top || y >= r.bottom) continue;
    bool edge_row = y < r.top + r.border || y + r.border >= r.bottom;
    if (r.border == 0 || edge_row) {
      put_pixel_run(row, r.left, r.right, r.rgba);
    } else {
      put_pixel_run(row, r.left, std::min(r.right, r.left + r.border), r.rgba);
      put_pixel_run(row, r.right > r.border ? std::max(r.left, r.right - r.border) : r.left,
                    r.right, r.rgba);
    }
  }
}

std::unique_ptr<ByteStream> SampleScreen::png() const {
  return std::make_unique<PngByteStream>(*this);
}

std::unique_ptr<ByteStream> SampleScreen::raw() const {
  return std::make_unique<RawByteStream>(*this);
}

std::vector<std::uint8_t> SampleScreen::png_bytes() const {
  std::vector<std::uint8_t> out;
  auto stream = png();
  while (stream->next(out)) {
  }
  return out;
}

}  // namespace adbwire::vdevice
