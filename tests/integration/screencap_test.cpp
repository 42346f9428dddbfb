// Screenshots against the virtual device: raw screencap, host-side PNG/JPEG encoding with
// scaling and a byte cap, and the device's own PNG, checked by decoding the results with
// libspng / libturbojpeg (independent of our encoder's code paths).
#include "adbwire/screencap.hpp"

#include <gtest/gtest.h>
#include <spng.h>
#include <turbojpeg.h>

#include <memory>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/vdevice.hpp"

namespace adbwire {
namespace {

struct Decoded {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;
};

Decoded decode_png(const std::vector<std::uint8_t>& png) {
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(0), spng_ctx_free);
  spng_set_png_buffer(ctx.get(), png.data(), png.size());
  spng_ihdr ihdr{};
  EXPECT_EQ(spng_get_ihdr(ctx.get(), &ihdr), 0);
  std::size_t size = 0;
  spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size);
  Decoded d{ihdr.width, ihdr.height, std::vector<std::uint8_t>(size)};
  EXPECT_EQ(spng_decode_image(ctx.get(), d.rgba.data(), size, SPNG_FMT_RGBA8, 0), 0);
  return d;
}

class Screencap : public ::testing::Test {
 protected:
  void SetUp() override {
    vd_.start();
    device_ = Device::connect(vd_.target());
  }
  VirtualDevice vd_;
  Device device_{nullptr, std::chrono::milliseconds(0)};
};

TEST_F(Screencap, RawPixelsAreTheDevicesPngPixels) {
  const RawImage raw = screencap_raw(device_);
  EXPECT_EQ(raw.width, 1080U);
  EXPECT_EQ(raw.height, 2400U);
  EXPECT_EQ(raw.format, PixelFormat::rgba_8888);
  EXPECT_EQ(raw.dataspace, 1U);  // the 16-byte header of Android 10+
  const std::string png = device_.exec("screencap -p");
  const Decoded device_png = decode_png({png.begin(), png.end()});
  EXPECT_EQ(device_png.rgba, raw.pixels);
}

TEST_F(Screencap, HostPngIsLossless) {
  const EncodedImage image = screenshot(device_);
  EXPECT_EQ(image.mime_type(), "image/png");
  const Decoded decoded = decode_png(image.bytes);
  EXPECT_EQ(decoded.width, 1080U);
  EXPECT_EQ(decoded.height, 2400U);
  EXPECT_EQ(decoded.rgba, screencap_raw(device_).pixels);
}

TEST_F(Screencap, MaxSideScalesTheLongerSide) {
  ScreenshotOptions options;
  options.max_side = 1000;
  const EncodedImage image = screenshot(device_, options);
  const Decoded decoded = decode_png(image.bytes);
  EXPECT_EQ(decoded.height, 1000U);
  EXPECT_EQ(decoded.width, 450U);
  EXPECT_EQ(image.width, 450U);
}

TEST_F(Screencap, JpegStaysUnderItsByteCap) {
  ScreenshotOptions options;
  options.format = ImageFormat::jpeg;
  options.max_side = 2000;
  options.max_bytes = 40'000;
  const EncodedImage image = screenshot(device_, options);
  EXPECT_EQ(image.mime_type(), "image/jpeg");
  EXPECT_LE(image.bytes.size(), options.max_bytes);
  std::unique_ptr<void, decltype(&tjDestroy)> tj(tjInitDecompress(), tjDestroy);
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  ASSERT_EQ(tjDecompressHeader3(tj.get(), image.bytes.data(), image.bytes.size(), &width, &height,
                                &subsampling, &colorspace),
            0);
  EXPECT_EQ(static_cast<std::uint32_t>(width), image.width);
  EXPECT_EQ(static_cast<std::uint32_t>(height), image.height);
  EXPECT_LE(std::max(width, height), 2000);
}

TEST_F(Screencap, DevicePngPassesThroughUnchanged) {
  ScreenshotOptions options;
  options.encode_on_host = false;
  const EncodedImage image = screenshot(device_, options);
  const std::string png = device_.exec("screencap -p");
  EXPECT_EQ(std::string(image.bytes.begin(), image.bytes.end()), png);
  EXPECT_EQ(image.width, 1080U);
  EXPECT_EQ(image.height, 2400U);
}

TEST_F(Screencap, DevicePngIsReencodedWhenScalingIsAsked) {
  ScreenshotOptions options;
  options.encode_on_host = false;
  options.format = ImageFormat::jpeg;
  options.max_side = 800;
  const EncodedImage image = screenshot(device_, options);
  EXPECT_EQ(image.format, ImageFormat::jpeg);
  EXPECT_EQ(image.height, 800U);
}

TEST(ScreencapEncode, ConvertsEachRawFormatToTheSameColours) {
  // One red, one green, one blue, one white pixel in each of Android's formats.
  const std::vector<std::uint8_t> expected = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
  const std::vector<std::pair<PixelFormat, std::vector<std::uint8_t>>> cases = {
      {PixelFormat::rgba_8888, {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}},
      {PixelFormat::rgbx_8888, {255, 0, 0, 9, 0, 255, 0, 9, 0, 0, 255, 9, 255, 255, 255, 9}},
      {PixelFormat::bgra_8888, {0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 255, 255, 255, 255}},
      {PixelFormat::rgb_888, {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255}},
      {PixelFormat::rgb_565, {0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff}},
  };
  for (const auto& [format, pixels] : cases) {
    const RawImage raw{2, 2, format, 0, pixels};
    const Decoded decoded = decode_png(encode(raw, {}).bytes);
    EXPECT_EQ(decoded.rgba, expected) << "format " << static_cast<int>(format);
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

}  // namespace
}  // namespace adbwire
