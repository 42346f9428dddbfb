// PngStream checked two ways: an independent reader written here for what it must produce (every
// chunk's CRC, the IHDR fields, the zlib stream inflated and its Adler-32 checked by zlib, one
// filter byte 0 per row), and libspng's decoder through integration/image_decode.hpp.
#include "vdevice/png.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string_view>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "integration/image_decode.hpp"
#include "vdevice/sample_screen.hpp"

namespace adbwire::vdevice {
namespace {

std::uint32_t be32(const std::uint8_t* p) { return protocol::load_be32(p); }

std::uint32_t crc_of(std::span<const std::uint8_t> bytes) {
  return static_cast<std::uint32_t>(
      ::crc32(::crc32(0, nullptr, 0), bytes.data(), static_cast<uInt>(bytes.size())));
}

// An independent reader for what PngStream writes: checks every chunk CRC, the IHDR, the zlib
// stream (inflated by zlib, which checks its Adler-32 trailer) and the filter bytes, and
// returns the pixels.
struct DecodedPng {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;
  std::size_t idat_chunks = 0;
};

DecodedPng decode(const std::vector<std::uint8_t>& png) {
  DecodedPng result;
  static constexpr std::uint8_t kSignature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_TRUE(png.size() >= 8 &&
              std::equal(std::begin(kSignature), std::end(kSignature), png.begin()));
  std::vector<std::uint8_t> zlib;
  std::size_t pos = 8;
  bool ended = false;
  while (pos + 12 <= png.size()) {
    std::uint32_t length = be32(&png[pos]);
    std::string type(reinterpret_cast<const char*>(&png[pos + 4]), 4);
    EXPECT_LE(pos + 12 + length, png.size());
    std::span<const std::uint8_t> typed(&png[pos + 4], length + 4);
    EXPECT_EQ(crc_of(typed), be32(&png[pos + 8 + length])) << "chunk " << type << " at " << pos;
    const std::uint8_t* data = &png[pos + 8];
    if (type == "IHDR") {
      EXPECT_EQ(length, 13u);
      result.width = be32(data);
      result.height = be32(data + 4);
      EXPECT_EQ(data[8], 8);  // bit depth
      EXPECT_EQ(data[9], 6);  // RGBA
    } else if (type == "IDAT") {
      zlib.insert(zlib.end(), data, data + length);
      ++result.idat_chunks;
    } else if (type == "IEND") {
      ended = true;
    }
    pos += 12 + length;
  }
  EXPECT_TRUE(ended);
  EXPECT_EQ(pos, png.size());

  EXPECT_GE(zlib.size(), 6u);
  EXPECT_EQ((zlib[0] * 256 + zlib[1]) % 31, 0);
  EXPECT_EQ(zlib[0] & 0x0f, 8);  // deflate
  std::size_t stride = 1 + std::size_t{result.width} * 4;
  std::vector<std::uint8_t> raw(stride * result.height + 1);  // one more: no trailing data
  uLongf raw_size = static_cast<uLongf>(raw.size());
  EXPECT_EQ(::uncompress(raw.data(), &raw_size, zlib.data(), static_cast<uLong>(zlib.size())),
            Z_OK);
  raw.resize(raw_size);
  EXPECT_EQ(raw.size(), stride * result.height);
  for (std::size_t y = 0; y < result.height && (y + 1) * stride <= raw.size(); ++y) {
    EXPECT_EQ(raw[y * stride], 0) << "filter of row " << y;
    result.rgba.insert(result.rgba.end(), raw.begin() + static_cast<std::ptrdiff_t>(y * stride + 1),
                       raw.begin() + static_cast<std::ptrdiff_t>((y + 1) * stride));
  }
  return result;
}

// The whole file; each piece is checked to stay near the 64 KiB a piece may hold.
std::vector<std::uint8_t> encode(std::uint32_t width, std::uint32_t height, const RowSource& rows,
                                 std::size_t* pieces = nullptr) {
  PngStream stream(width, height, rows);
  std::vector<std::uint8_t> out;
  std::size_t count = 0;
  for (std::size_t before = 0; stream.next(out); before = out.size()) {
    ++count;
    EXPECT_LE(out.size() - before, 256u * 1024) << "piece " << count;
  }
  EXPECT_FALSE(stream.next(out));
  if (pieces) *pieces = count;
  return out;
}

// The same pixels through libspng's decoder.
void expect_reference_decode(const std::vector<std::uint8_t>& png, std::uint32_t width,
                             std::uint32_t height, const std::vector<std::uint8_t>& rgba) {
  const test::Decoded decoded = test::decode_png(png);
  EXPECT_EQ(decoded.width, width);
  EXPECT_EQ(decoded.height, height);
  EXPECT_TRUE(decoded.rgba == rgba) << "libspng decodes other pixels";
}

void pattern(std::uint32_t y, std::span<std::uint8_t> row) {
  for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<std::uint8_t>(y * 31 + i * 7);
}

TEST(PngStream, SmallImageRoundTrips) {
  auto png = encode(3, 2, pattern);
  auto decoded = decode(png);
  EXPECT_EQ(decoded.width, 3u);
  EXPECT_EQ(decoded.height, 2u);
  std::vector<std::uint8_t> expected(3 * 4 * 2);
  pattern(0, std::span<std::uint8_t>(expected).first(12));
  pattern(1, std::span<std::uint8_t>(expected).subspan(12));
  EXPECT_EQ(decoded.rgba, expected);
  EXPECT_EQ(decoded.idat_chunks, 1u);
  expect_reference_decode(png, 3, 2, expected);
}

TEST(PngStream, RowsComeAPieceOfAbout64KiBAtATime) {
  // 400 bytes per row * 400 rows: 163 rows a piece, so the header and three pieces of rows.
  std::size_t pieces = 0;
  auto png = encode(100, 400, pattern, &pieces);
  auto decoded = decode(png);
  EXPECT_EQ(pieces, 4u);
  ASSERT_EQ(decoded.rgba.size(), 100u * 400 * 4);
  std::vector<std::uint8_t> row(400);
  for (std::uint32_t y = 0; y < 400; ++y) {
    pattern(y, row);
    ASSERT_TRUE(std::equal(row.begin(), row.end(), decoded.rgba.begin() + y * 400)) << "row " << y;
  }
  expect_reference_decode(png, 100, 400, decoded.rgba);
}

TEST(PngStream, RowsWiderThanAPieceComeOneAtATime) {
  // 80,000 bytes per row: each row is a piece of its own.
  std::size_t pieces = 0;
  auto png = encode(20000, 3, pattern, &pieces);
  auto decoded = decode(png);
  EXPECT_EQ(pieces, 4u);
  ASSERT_EQ(decoded.rgba.size(), 20000u * 3 * 4);
  std::vector<std::uint8_t> expected(20000u * 3 * 4);
  for (std::uint32_t y = 0; y < 3; ++y)
    pattern(y, std::span<std::uint8_t>(expected).subspan(y * 80000u, 80000u));
  EXPECT_TRUE(decoded.rgba == expected);
  expect_reference_decode(png, 20000, 3, expected);
}

TEST(PngStream, SizesPngCannotHoldAreRefused) {
  EXPECT_THROW(PngStream(0, 10, pattern), Error);
  EXPECT_THROW(PngStream(10, 0, pattern), Error);
}

TEST(SampleScreen, PngShowsTheRenderedScreen) {
  const SampleScreen& screen = SampleScreen::instance();
  auto png = screen.png_bytes();
  auto decoded = decode(png);
  EXPECT_EQ(decoded.width, 1080u);
  EXPECT_EQ(decoded.height, 2400u);
  ASSERT_EQ(decoded.rgba.size(), 1080u * 2400 * 4);
  std::vector<std::uint8_t> row(1080 * 4);
  for (std::uint32_t y = 0; y < 2400; ++y) {
    screen.render_row(y, row);
    ASSERT_TRUE(std::equal(row.begin(), row.end(), decoded.rgba.begin() + y * row.size()))
        << "row " << y;
  }
  expect_reference_decode(png, 1080, 2400, decoded.rgba);
}

TEST(SampleScreen, DrawsTheDumpsWidgets) {
  const SampleScreen& screen = SampleScreen::instance();
  EXPECT_GT(screen.rects().size(), 20u);
  auto pixel = [&](std::uint32_t x, std::uint32_t y) {
    std::vector<std::uint8_t> row(1080 * 4);
    screen.render_row(y, row);
    return (std::uint32_t{row[x * 4]} << 24) | (row[x * 4 + 1] << 16) | (row[x * 4 + 2] << 8) |
           row[x * 4 + 3];
  };
  // The "Add" button ([42,496][354,622]) is filled with the primary colour near its corner,
  // the search field ([42,328][1038,454]) has an outline and a white inside.
  EXPECT_EQ(pixel(45, 500), 0x6750a4ffu);
  EXPECT_EQ(pixel(43, 400), 0x79747effu);
  EXPECT_EQ(pixel(1000, 400), 0xffffffffu);
  EXPECT_NE(pixel(45, 500), pixel(45, 480));
}

TEST(SampleScreen, LayoutSkipsNodesWithoutBounds) {
  auto rects = layout_from_dump(
      R"(<hierarchy rotation="0"><node class="android.widget.Button" text="x" bounds="[10,10][110,60]"/>)"
      R"(<node class="android.widget.Button" text="y" bounds="garbage"/></hierarchy>)");
  ASSERT_EQ(rects.size(), 2u);  // the button fill and its label
  EXPECT_EQ(rects[0].left, 10u);
  EXPECT_EQ(rects[0].bottom, 60u);
  EXPECT_TRUE(layout_from_dump("not xml").empty());
}

}  // namespace
}  // namespace adbwire::vdevice
