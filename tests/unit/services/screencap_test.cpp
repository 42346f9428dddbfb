// Host-side screenshots without a device: raw screencap output parsed (both header sizes,
// text before the header), each Android pixel format, area-average scaling, and the PNG/JPEG
// encoders checked by decoding their output with libspng / libturbojpeg, on made-up images
// and on the real screenshots in ../shared/corpus/png.
#include "adbwire/screencap.hpp"

#include <gtest/gtest.h>
#include <spng.h>
#include <turbojpeg.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "integration/image_decode.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

using test::decode_jpeg;
using test::decode_png;
using test::Decoded;

// What `screencap` writes: the header (16 bytes when dataspace is set) and the pixels.
std::vector<std::uint8_t> raw_output(std::uint32_t w, std::uint32_t h, std::uint32_t format,
                                     std::optional<std::uint32_t> dataspace,
                                     const std::vector<std::uint8_t>& pixels) {
  std::vector<std::uint8_t> out;
  protocol::append_le32(out, w);
  protocol::append_le32(out, h);
  protocol::append_le32(out, format);
  if (dataspace) protocol::append_le32(out, *dataspace);
  out.insert(out.end(), pixels.begin(), pixels.end());
  return out;
}

std::vector<std::uint8_t> pattern(std::size_t size) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return bytes;
}

TEST(ParseRawScreencap, SixteenByteHeaderOfAndroid10AndLater) {
  const std::vector<std::uint8_t> pixels = pattern(3 * 2 * 4);
  const RawImage image = parse_raw_screencap(raw_output(3, 2, 1, 2, pixels));
  EXPECT_EQ(image.width, 3U);
  EXPECT_EQ(image.height, 2U);
  EXPECT_EQ(image.format, PixelFormat::rgba_8888);
  EXPECT_EQ(image.dataspace, 2U);
  EXPECT_EQ(image.pixels, pixels);
}

TEST(ParseRawScreencap, TwelveByteHeaderOfOlderAndroid) {
  const std::vector<std::uint8_t> pixels = pattern(5 * 3 * 2);
  const RawImage image = parse_raw_screencap(raw_output(5, 3, 4, std::nullopt, pixels));
  EXPECT_EQ(image.format, PixelFormat::rgb_565);
  EXPECT_EQ(image.dataspace, 0U);
  EXPECT_EQ(image.pixels, pixels);
}

TEST(ParseRawScreencap, SkipsWarningLinesBeforeTheHeader) {
  const std::string warning =
      "[Warning] Multiple displays were found, but no display id was specified! Defaulting to the "
      "first display found.\nSee \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n";
  const std::vector<std::uint8_t> pixels = pattern(4 * 4 * 4);
  std::vector<std::uint8_t> output(warning.begin(), warning.end());
  const std::vector<std::uint8_t> raw = raw_output(4, 4, 5, 1, pixels);
  output.insert(output.end(), raw.begin(), raw.end());
  const RawImage image = parse_raw_screencap(output);
  EXPECT_EQ(image.width, 4U);
  EXPECT_EQ(image.format, PixelFormat::bgra_8888);
  EXPECT_EQ(image.pixels, pixels);
}

TEST(ParseRawScreencap, OutputThatIsNoImageIsAParseErrorQuotingIt) {
  const std::string text = "/system/bin/sh: screencap: inaccessible or not found\n";
  std::error_code error;
  parse_raw_screencap({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, error);
  EXPECT_EQ(error, errc::parse_error);

  std::vector<std::uint8_t> short_pixels = raw_output(4, 4, 1, 1, pattern(4 * 4 * 4 - 1));
  parse_raw_screencap(short_pixels, error);
  EXPECT_EQ(error, errc::parse_error);

  std::vector<std::uint8_t> unknown_format = raw_output(2, 2, 99, 1, pattern(2 * 2 * 4));
  try {
    parse_raw_screencap(unknown_format);
    FAIL() << "format 99 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::parse_error);
    EXPECT_NE(std::string(e.what()).find("12- or 16-byte header"), std::string::npos) << e.what();
  }
  try {
    parse_raw_screencap({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    FAIL() << "text was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inaccessible or not found"), std::string::npos)
        << e.what();
  }
}

TEST(ParseRawScreencap, TheQuotedStartIsEscapedAndCut) {
  // A device's text reaches the message through protocol::printable: no terminal control.
  const std::string text = "\x1b]0;pwned\x07\x1b[2J" + std::string(200, 'x') + "\n";
  try {
    parse_raw_screencap({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    FAIL() << "text was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("starts \"\\x1b]0;pwned\\x07\\x1b[2Jxxx"), std::string::npos) << what;
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
    EXPECT_EQ(what.find(std::string(61, 'x')), std::string::npos) << "not cut: " << what;
  }
}

TEST(ScreencapEncode, ConvertsEachRawFormatToTheSameColours) {
  // One red, one green, one blue, one white pixel in each of Android's formats.
  const std::vector<std::uint8_t> expected = {255, 0, 0,   255, 0,   255, 0,   255,
                                              0,   0, 255, 255, 255, 255, 255, 255};
  const std::vector<std::pair<PixelFormat, std::vector<std::uint8_t>>> cases = {
      {PixelFormat::rgba_8888,
       {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}},
      {PixelFormat::rgbx_8888, {255, 0, 0, 9, 0, 255, 0, 9, 0, 0, 255, 9, 255, 255, 255, 9}},
      {PixelFormat::bgra_8888,
       {0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 255, 255, 255, 255}},
      {PixelFormat::rgb_888, {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255}},
      {PixelFormat::rgb_565, {0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff}},
  };
  for (const auto& [format, pixels] : cases) {
    const RawImage raw{2, 2, format, 0, pixels};
    const Decoded decoded = decode_png(encode(raw, {}).bytes);
    EXPECT_EQ(decoded.rgba, expected) << "format " << static_cast<int>(format);
  }
}

TEST(ScreencapEncode, AreaAverageKeepsThinLinesAsGrey) {
  // Alternating black and white one-pixel columns: nearest-neighbour sampling would give all
  // black or all white; the area average gives the mean.
  RawImage raw{8, 4, PixelFormat::rgba_8888, 0, {}};
  for (std::uint32_t y = 0; y < 4; ++y) {
    for (std::uint32_t x = 0; x < 8; ++x) {
      const std::uint8_t v = x % 2 == 0 ? 0 : 255;
      raw.pixels.insert(raw.pixels.end(), {v, v, v, 255});
    }
  }
  ScreenshotOptions options;
  options.max_side = 4;
  const EncodedImage image = encode(raw, options);
  EXPECT_EQ(image.width, 4U);
  EXPECT_EQ(image.height, 2U);
  const Decoded decoded = decode_png(image.bytes);
  ASSERT_EQ(decoded.rgba.size(), 4U * 2 * 4);
  for (std::size_t i = 0; i < decoded.rgba.size(); i += 4) {
    EXPECT_EQ(decoded.rgba[i], 128) << "pixel " << i / 4;
    EXPECT_EQ(decoded.rgba[i + 3], 255);
  }
}

TEST(ScreencapEncode, MaxSideKeepsTheAspectRatioAndNeverEnlarges) {
  const RawImage landscape{1000, 500, PixelFormat::rgbx_8888, 0, pattern(1000 * 500 * 4)};
  ScreenshotOptions options;
  options.max_side = 100;
  const EncodedImage small = encode(landscape, options);
  EXPECT_EQ(small.width, 100U);
  EXPECT_EQ(small.height, 50U);
  options.max_side = 4000;
  const EncodedImage same = encode(landscape, options);
  EXPECT_EQ(same.width, 1000U);
  EXPECT_EQ(same.height, 500U);
}

TEST(ScreencapEncode, JpegDecodesBackToTheColoursWithinJpegError) {
  RawImage raw{64, 48, PixelFormat::rgb_888, 0, {}};
  for (std::uint32_t i = 0; i < 64 * 48; ++i) raw.pixels.insert(raw.pixels.end(), {200, 80, 30});
  ScreenshotOptions options;
  options.format = ImageFormat::jpeg;
  options.jpeg_quality = 90;
  const EncodedImage image = encode(raw, options);
  EXPECT_EQ(image.mime_type(), "image/jpeg");
  const Decoded decoded = decode_jpeg(image.bytes);
  EXPECT_EQ(decoded.width, 64U);
  EXPECT_EQ(decoded.height, 48U);
  for (std::size_t i = 0; i < decoded.rgba.size(); i += 4) {
    EXPECT_NEAR(decoded.rgba[i], 200, 4);
    EXPECT_NEAR(decoded.rgba[i + 1], 80, 4);
    EXPECT_NEAR(decoded.rgba[i + 2], 30, 4);
  }
}

TEST(ScreencapEncode, BadInputsAreTypedErrors) {
  const RawImage tiny{2, 2, PixelFormat::rgba_8888, 0, std::vector<std::uint8_t>(16, 128)};
  std::error_code error;
  ScreenshotOptions bad_quality;
  bad_quality.format = ImageFormat::jpeg;
  bad_quality.jpeg_quality = 0;
  encode(tiny, bad_quality, error);
  EXPECT_EQ(error, errc::invalid_argument);

  const RawImage short_pixels{4, 4, PixelFormat::rgba_8888, 0, std::vector<std::uint8_t>(10)};
  encode(short_pixels, {}, error);
  EXPECT_EQ(error, errc::invalid_argument);

  ScreenshotOptions impossible;
  impossible.max_bytes = 10;  // no PNG is 10 bytes
  try {
    encode(tiny, impossible);
    FAIL() << "a 10-byte cap was met";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("raise max_bytes"), std::string::npos) << e.what();
  }
}

std::vector<fs::path> corpus_pngs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator("../shared/corpus/png")) {
    if (entry.path().extension() == ".png") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

RawImage raw_from_png_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> png((std::istreambuf_iterator<char>(file)),
                                      std::istreambuf_iterator<char>());
  Decoded decoded = decode_png(png);
  return {decoded.width, decoded.height, PixelFormat::rgba_8888, 0, std::move(decoded.rgba)};
}

TEST(ScreencapCorpus, RealScreenshotsRoundTripLosslesslyAsPng) {
  const std::vector<fs::path> files = corpus_pngs();
  ASSERT_FALSE(files.empty()) << "../shared/corpus/png holds no PNG (run from the repo root)";
  for (const fs::path& path : files) {
    const RawImage raw = raw_from_png_file(path);
    const EncodedImage image = encode(raw, {});
    EXPECT_EQ(decode_png(image.bytes).rgba, raw.pixels) << path;
  }
}

TEST(ScreencapCorpus, RealScreenshotsFitModelLimitsAsJpeg) {
  // What model APIs take: at most 2000 px a side and 1 MB; 1000 px for a cheap step.
  for (const fs::path& path : corpus_pngs()) {
    const RawImage raw = raw_from_png_file(path);
    for (const std::uint32_t side : {2000U, 1000U}) {
      ScreenshotOptions options;
      options.format = ImageFormat::jpeg;
      options.max_side = side;
      options.max_bytes = 1'000'000;
      const EncodedImage image = encode(raw, options);
      EXPECT_LE(image.bytes.size(), options.max_bytes) << path;
      const Decoded decoded = decode_jpeg(image.bytes);
      EXPECT_EQ(decoded.width, image.width) << path;
      EXPECT_LE(std::max(decoded.width, decoded.height), side) << path;
      // The shorter side shrinks by the longer side's factor, to within a pixel of rounding.
      const double factor = static_cast<double>(std::max(decoded.width, decoded.height)) /
                            std::max(raw.width, raw.height);
      EXPECT_NEAR(decoded.width, raw.width * factor, 1.0) << path;
      EXPECT_NEAR(decoded.height, raw.height * factor, 1.0) << path;
    }
  }
}

}  // namespace
}  // namespace adbwire
