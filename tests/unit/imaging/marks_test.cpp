// Marks on every real dump of ../shared/corpus/xml (read in place) over a flat screen of the
// dump's size: one mark per ref on the screen, numbered as the snapshot numbers it, each box
// drawn where its bounds are (pixels checked), labels inside the screen and apart where room
// allows; the same after scaling as the screenshot verb scales; the numbers read back by OCR.
#include "adbwire/marks.hpp"

#include <gtest/gtest.h>
#include <spng.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>

#include "adbwire/error.hpp"
#include "adbwire/ocr.hpp"
#include "unit/imaging/render.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

constexpr std::uint8_t kGrey = 128;
const fs::path kCorpus = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> corpus() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kCorpus))
    if (entry.path().extension() == ".xml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

ui::Point screen_of(const ui::Snapshot& s) {
  ui::Point size;
  for (const ui::Node& n : s.nodes()) {
    if (n.depth == 0 && n.has_bounds) {
      size.x = std::max(size.x, n.bounds.right);
      size.y = std::max(size.y, n.bounds.bottom);
    }
  }
  return size;
}

const std::uint8_t* pixel(const RawImage& image, std::int32_t x, std::int32_t y) {
  return &image.pixels[(std::size_t(y) * image.width + std::size_t(x)) * 4];
}

bool is_grey(const std::uint8_t* p, int tolerance = 0) {
  return std::abs(p[0] - kGrey) <= tolerance && std::abs(p[1] - kGrey) <= tolerance &&
         std::abs(p[2] - kGrey) <= tolerance;
}

RawImage decode_png(const std::vector<std::uint8_t>& png) {
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(0), spng_ctx_free);
  spng_set_png_buffer(ctx.get(), png.data(), png.size());
  spng_ihdr ihdr{};
  std::size_t size = 0;
  EXPECT_EQ(spng_get_ihdr(ctx.get(), &ihdr), 0);
  EXPECT_EQ(spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size), 0);
  RawImage out{ihdr.width, ihdr.height, PixelFormat::rgba_8888, 0, std::vector<std::uint8_t>(size)};
  EXPECT_EQ(spng_decode_image(ctx.get(), out.pixels.data(), size, SPNG_FMT_RGBA8, 0), 0);
  return out;
}

// True when p lies on the stroke band of another mark's box or under any label: what may hide
// a box's own pixels.
bool covered(const std::vector<PlacedMark>& placed, std::size_t self, ui::Point p, int band) {
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (placed[i].label.contains(p)) return true;
    if (i == self) continue;
    const ui::Bounds& b = placed[i].box;
    const ui::Bounds outer{b.left - band, b.top - band, b.right + band, b.bottom + band};
    const ui::Bounds inner{b.left + band, b.top + band, b.right - band, b.bottom - band};
    if (outer.contains(p) && !inner.contains(p)) return true;
  }
  return false;
}

// A corpus dump over a flat screen of its size, and its marks.
struct Scene {
  ui::Snapshot snapshot;
  RawImage screen;
  std::vector<Mark> marks;
};

Scene scene(const std::string& dump) {
  Scene s{ui::parse_dump(read_file(kCorpus / dump)), {}, {}};
  const ui::Point size = screen_of(s.snapshot);
  s.screen = test::render_screen(std::uint32_t(size.x), std::uint32_t(size.y), kGrey);
  s.marks = marks_of(s.snapshot, s.screen.width, s.screen.height);
  return s;
}

TEST(Marks, EveryCorpusRefIsDrawnWhereItsBoundsAreWithItsOwnNumber) {
  const std::vector<fs::path> files = corpus();
  ASSERT_GE(files.size(), 30U) << "expected the real dumps in " << kCorpus;
  std::size_t checked_boxes = 0;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const ui::Snapshot snapshot = ui::parse_dump(read_file(file));
    const ui::Point size = screen_of(snapshot);
    if (size.x <= 0 || size.y <= 0) continue;
    const RawImage screen =
        test::render_screen(std::uint32_t(size.x), std::uint32_t(size.y), kGrey);
    const std::vector<Mark> marks = marks_of(snapshot, screen.width, screen.height);
    // Every ref with bounds on the screen, in the snapshot's numbering.
    std::vector<std::uint32_t> expected;
    for (const ui::RefInfo& r : snapshot.refs()) {
      if (r.bounds.intersects({0, 0, size.x, size.y})) expected.push_back(r.ref);
    }
    std::vector<std::uint32_t> numbers;
    for (const Mark& m : marks) numbers.push_back(m.ref);
    EXPECT_EQ(numbers, expected);

    const MarkedImage marked = draw_marks(screen, marks);
    ASSERT_EQ(marked.placed.size(), marks.size());
    EXPECT_EQ(marked.image.width, screen.width);
    std::set<std::pair<int, int>> corners;
    for (std::size_t i = 0; i < marked.placed.size(); ++i) {
      const PlacedMark& p = marked.placed[i];
      EXPECT_EQ(p.ref, marks[i].ref);
      EXPECT_EQ(p.box, marks[i].bounds);
      // The label lies inside the screen and is painted.
      EXPECT_GE(p.label.left, 0);
      EXPECT_GE(p.label.top, 0);
      EXPECT_LE(p.label.right, size.x);
      EXPECT_LE(p.label.bottom, size.y);
      EXPECT_FALSE(is_grey(pixel(marked.image, p.label.left + 2, p.label.top + 2)));
      corners.insert({p.label.left, p.label.top});
      // The box: its four edges painted at their midpoints, its inside left alone.
      const ui::Bounds& b = p.box;
      if (b.width() < 40 || b.height() < 40) continue;
      const ui::Point c = b.center();
      const ui::Point edges[] = {
          {b.left, c.y}, {b.right - 1, c.y}, {c.x, b.top}, {c.x, b.bottom - 1}};
      for (const ui::Point e : edges) {
        EXPECT_FALSE(is_grey(pixel(marked.image, e.x, e.y)))
            << "ref " << p.ref << " at " << e.x << "," << e.y;
      }
      if (!covered(marked.placed, i, c, 12)) {
        EXPECT_TRUE(is_grey(pixel(marked.image, c.x, c.y))) << "ref " << p.ref << " centre";
      }
      ++checked_boxes;
    }
    // Labels of distinct boxes never pile up on one spot.
    std::set<std::pair<int, int>> box_corners;
    for (const PlacedMark& p : marked.placed) box_corners.insert({p.box.left, p.box.top});
    EXPECT_GE(corners.size(), std::min(box_corners.size(), marked.placed.size()));
  }
  EXPECT_GT(checked_boxes, 300U);
}

TEST(Marks, ScaledScreenshotsKeepEachBoxWhereItsBoundsAre) {
  const Scene network = scene("android-phone-network-settings.xml");
  const RawImage& screen = network.screen;
  const std::vector<Mark>& marks = network.marks;
  const ui::Point size{std::int32_t(screen.width), std::int32_t(screen.height)};
  ASSERT_GT(marks.size(), 5U);
  ScreenshotOptions options;
  options.max_side = 800;
  const double scale = 800.0 / std::max(size.x, size.y);
  const MarkedImage marked = draw_marks(screen, marks, scale);
  const EncodedImage png = encode(marked.image, options);
  EXPECT_EQ(png.screen_width, screen.width);
  EXPECT_EQ(png.screen_height, screen.height);
  const RawImage small = decode_png(png.bytes);
  ASSERT_EQ(small.width, png.width);
  for (std::size_t i = 0; i < marked.placed.size(); ++i) {
    const ui::Bounds& b = marked.placed[i].box;
    if (b.width() < 80 || b.height() < 80) continue;
    const ui::Point c = b.center();
    const auto at = [&](int x, int y) {
      return pixel(small, std::min<int>(int(x * scale), int(small.width) - 1),
                   std::min<int>(int(y * scale), int(small.height) - 1));
    };
    // The stroke survives the area-average scaling; the inside stays grey.
    EXPECT_FALSE(is_grey(at(b.left, c.y), 10)) << "ref " << marked.placed[i].ref;
    EXPECT_FALSE(is_grey(at(c.x, b.top), 10)) << "ref " << marked.placed[i].ref;
    if (!covered(marked.placed, i, c, int(3 / scale) + 12)) {
      EXPECT_TRUE(is_grey(at(c.x, c.y), 2)) << "ref " << marked.placed[i].ref;
    }
  }
}

// Tesseract's layout analysis drops a lone glyph as noise, so the labels of two or more digits
// are read back (refs 10 and up of a chat list's snapshot).
TEST(Marks, LabelsReadBackAsTheRefNumbers) {
  const Scene chats = scene("whatsapp-chatlist-pt-motorola.xml");
  // Drawn for an image scaled by half, as a model's is, so the digits are twice the smallest.
  const MarkedImage marked = draw_marks(chats.screen, chats.marks, 0.5);
  std::size_t read_back = 0;
  TextReader reader;
  for (const PlacedMark& p : marked.placed) {
    if (p.ref < 10) continue;
    // The inside of the label (its edge left out) twice its size, on a margin of the
    // plate's colour: Tesseract reads text of a page's size on a plain ground best.
    const int zoom = 2;
    const int margin = 40;
    const ui::Bounds in{p.label.left + 2, p.label.top + 2, p.label.right - 2, p.label.bottom - 2};
    const std::uint8_t* plate = pixel(marked.image, in.left, in.top);
    RawImage crop{std::uint32_t(in.width() * zoom + 2 * margin),
                  std::uint32_t(in.height() * zoom + 2 * margin),
                  PixelFormat::rgba_8888,
                  0,
                  {}};
    crop.pixels.resize(std::size_t(crop.width) * crop.height * 4);
    for (std::size_t i = 0; i < crop.pixels.size(); i += 4) std::copy_n(plate, 4, &crop.pixels[i]);
    for (int y = 0; y < in.height() * zoom; ++y) {
      for (int x = 0; x < in.width() * zoom; ++x) {
        std::copy_n(
            pixel(marked.image, in.left + x / zoom, in.top + y / zoom), 4,
            &crop.pixels[(std::size_t(y + margin) * crop.width + std::size_t(x + margin)) * 4]);
      }
    }
    const std::vector<TextBox> read = reader.read(crop);
    std::string text;
    for (const TextBox& t : read) text += t.text;
    EXPECT_EQ(text, std::to_string(p.ref));
    ++read_back;
  }
  EXPECT_GE(read_back, 10U);
}

TEST(Marks, RefusesPixelsThatDoNotMatchTheSize) {
  RawImage bad{100, 100, PixelFormat::rgba_8888, 0, std::vector<std::uint8_t>(10)};
  std::error_code error;
  draw_marks(bad, {}, 1.0, error);
  EXPECT_EQ(error, errc::invalid_argument);
  const RawImage good = test::render_screen(10, 10, kGrey);
  draw_marks(good, {}, 0.0, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

}  // namespace
}  // namespace adbwire
