#include "vdevice/png.hpp"

#include <gtest/gtest.h>

#include <string_view>

#include "vdevice/sample_screen.hpp"

namespace adbwire::vdevice {
namespace {

std::span<const std::uint8_t> bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::uint32_t be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

// An independent reader for exactly what PngStream writes: checks every chunk CRC, the zlib
// header, the stored blocks (LEN/NLEN, BFINAL only on the last), the Adler-32 trailer and
// the filter bytes, and returns the pixels.
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
    EXPECT_EQ(crc32(typed), be32(&png[pos + 8 + length])) << "chunk " << type << " at " << pos;
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
  std::vector<std::uint8_t> raw;
  std::size_t at = 2;
  for (bool final_block = false; !final_block;) {
    EXPECT_LE(at + 5, zlib.size());
    if (at + 5 > zlib.size()) return result;
    EXPECT_EQ(zlib[at] & 0x06, 0) << "not a stored block";
    final_block = zlib[at] & 1;
    std::uint16_t len = static_cast<std::uint16_t>(zlib[at + 1] | (zlib[at + 2] << 8));
    std::uint16_t nlen = static_cast<std::uint16_t>(zlib[at + 3] | (zlib[at + 4] << 8));
    EXPECT_EQ(static_cast<std::uint16_t>(~len), nlen);
    raw.insert(raw.end(), zlib.begin() + static_cast<std::ptrdiff_t>(at + 5),
               zlib.begin() + static_cast<std::ptrdiff_t>(at + 5 + len));
    at += 5 + len;
  }
  EXPECT_EQ(at + 4, zlib.size());
  EXPECT_EQ(adler32(raw), be32(&zlib[at]));

  std::size_t stride = 1 + std::size_t{result.width} * 4;
  EXPECT_EQ(raw.size(), stride * result.height);
  for (std::size_t y = 0; y < result.height && (y + 1) * stride <= raw.size(); ++y) {
    EXPECT_EQ(raw[y * stride], 0) << "filter of row " << y;
    result.rgba.insert(result.rgba.end(), raw.begin() + static_cast<std::ptrdiff_t>(y * stride + 1),
                       raw.begin() + static_cast<std::ptrdiff_t>((y + 1) * stride));
  }
  return result;
}

std::vector<std::uint8_t> encode(std::uint32_t width, std::uint32_t height, const RowSource& rows,
                                 std::size_t* pieces = nullptr) {
  PngStream stream(width, height, rows);
  std::vector<std::uint8_t> out;
  std::size_t count = 0;
  while (stream.next(out)) ++count;
  EXPECT_EQ(out.size(), stream.size());
  if (pieces) *pieces = count;
  return out;
}

void pattern(std::uint32_t y, std::span<std::uint8_t> row) {
  for (std::size_t i = 0; i < row.size(); ++i) row[i] = static_cast<std::uint8_t>(y * 31 + i * 7);
}

TEST(Checksums, KnownValues) {
  EXPECT_EQ(crc32(bytes("123456789")), 0xcbf43926u);
  EXPECT_EQ(crc32(bytes("")), 0u);
  EXPECT_EQ(crc32(bytes("456789"), crc32(bytes("123"))), 0xcbf43926u);
  EXPECT_EQ(adler32(bytes("Wikipedia")), 0x11e60398u);
  EXPECT_EQ(adler32(bytes("")), 1u);
  EXPECT_EQ(adler32(bytes("pedia"), adler32(bytes("Wiki"))), 0x11e60398u);
  // Long input crosses the overflow-safe run length of the Adler sums.
  std::vector<std::uint8_t> ff(100000, 0xff);
  std::uint32_t a = 1, b = 0;
  for (std::uint8_t v : ff) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  EXPECT_EQ(adler32(ff), (b << 16) | a);
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
}

TEST(PngStream, RowsSpanSeveralStoredBlocks) {
  // 401 bytes per row * 400 rows = 160400 bytes: three blocks, rows cut at block edges.
  std::size_t pieces = 0;
  auto png = encode(100, 400, pattern, &pieces);
  auto decoded = decode(png);
  EXPECT_EQ(decoded.idat_chunks, 3u);
  EXPECT_EQ(pieces, 5u);  // header, three IDAT, IEND
  ASSERT_EQ(decoded.rgba.size(), 100u * 400 * 4);
  std::vector<std::uint8_t> row(400);
  for (std::uint32_t y = 0; y < 400; ++y) {
    pattern(y, row);
    ASSERT_TRUE(std::equal(row.begin(), row.end(), decoded.rgba.begin() + y * 400)) << "row " << y;
  }
}

TEST(PngStream, ExactMultipleOfTheBlockSize) {
  // One row of 1 + 4*w bytes equal to 65535 * 2 is impossible; pick 3 rows of 21845 bytes.
  auto png = encode(5461, 3, pattern);
  auto decoded = decode(png);
  EXPECT_EQ(decoded.idat_chunks, 1u);
  EXPECT_EQ(decoded.rgba.size(), 5461u * 3 * 4);
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
