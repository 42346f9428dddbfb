// Screenshots against the virtual device: raw screencap (both header sizes), framebuffer:
// (versions 1 and 2), host-side PNG/JPEG encoding with scaling and a byte cap, the device's own
// PNG, display ids and the warning a two-display device prints first, checked by decoding the
// results with libspng / libturbojpeg (independent of our encoder's code paths).
#include "adbwire/screencap.hpp"

#include <gtest/gtest.h>
#include <spng.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/image_decode.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

using test::decode_png;
using test::Decoded;

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

TEST_F(Screencap, FramebufferServiceGivesTheRawScreencapPixels) {
  const RawImage fb = framebuffer(device_);
  EXPECT_EQ(fb.width, 1080U);
  EXPECT_EQ(fb.height, 2400U);
  EXPECT_EQ(fb.format, PixelFormat::rgba_8888);
  EXPECT_EQ(fb.dataspace, 1U);  // header version 2 carries the colour space: sRGB
  EXPECT_EQ(fb.pixels, screencap_raw(device_).pixels);
}

// A virtual device with its own options (API level, displays), connected.
struct Configured {
  explicit Configured(VirtualDeviceOptions options) : vd(std::move(options)) {
    vd.start();
    device = Device::connect(vd.target());
  }
  VirtualDevice vd;
  Device device{nullptr, std::chrono::milliseconds(0)};
};

VirtualDeviceOptions with_api_level(std::uint32_t level) {
  VirtualDeviceOptions options;
  options.api_level = level;
  return options;
}

VirtualDeviceOptions with_displays(std::uint32_t count) {
  VirtualDeviceOptions options;
  options.displays = count;
  return options;
}

TEST(ScreencapOldAndroid, TwelveByteHeaderAndFramebufferVersion1) {
  Configured old(with_api_level(28));
  const std::string raw = old.device.exec("screencap");
  EXPECT_EQ(raw.size(), 12U + 1080U * 2400U * 4U);  // no dataspace word before Android 10
  const RawImage image = screencap_raw(old.device);
  EXPECT_EQ(image.dataspace, 0U);
  const RawImage fb = framebuffer(old.device);
  EXPECT_EQ(fb.dataspace, 0U);  // version 1 has no colour space
  EXPECT_EQ(fb.pixels, image.pixels);
  EXPECT_EQ(decode_png(screenshot(old.device).bytes).rgba, image.pixels);
}

constexpr std::uint64_t kMainDisplay = 4619827259835644672ULL;       // VirtualDeviceOptions
constexpr std::uint64_t kSecondaryDisplay = 4619827259835644673ULL;  // ::displays

TEST(ScreencapDisplays, DisplayIdReachesTheDevice) {
  Configured two(with_displays(2));
  const RawImage secondary = screencap_raw(two.device, kSecondaryDisplay);
  EXPECT_EQ(secondary.width, 720U);
  EXPECT_EQ(secondary.height, 1280U);
  const RawImage main = screencap_raw(two.device, kMainDisplay);
  EXPECT_EQ(main.width, 1080U);

  ScreenshotOptions options;
  options.display_id = kSecondaryDisplay;
  options.format = ImageFormat::jpeg;
  const EncodedImage jpeg = screenshot(two.device, options);
  EXPECT_EQ(jpeg.width, 720U);
  options.encode_on_host = false;
  options.format = ImageFormat::png;
  const EncodedImage device_png = screenshot(two.device, options);
  EXPECT_EQ(decode_png(device_png.bytes).rgba, secondary.pixels);

  std::error_code error;
  screencap_raw(two.device, 12345, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::parse_error);
  try {
    screencap_raw(two.device, 12345);
    FAIL() << "display 12345 was captured";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no display with ID 12345"), std::string::npos)
        << e.what();
  }
}

TEST(ScreencapDisplays, WarningBeforeTheImageIsDropped) {
  // Two displays and no -d: Android 12+ screencap warns on stderr, and exec: merges it in
  // front of the image.
  Configured two(with_displays(2));
  const std::string merged = two.device.exec("screencap -p");
  ASSERT_TRUE(merged.starts_with("[Warning] Multiple displays were found")) << merged.substr(0, 80);
  const std::size_t png_at = merged.find("\x89PNG\r\n\x1a\n");
  ASSERT_NE(png_at, std::string::npos);

  std::string streamed;
  std::size_t chunks = 0;
  screencap_png(two.device, [&](std::span<const std::uint8_t> chunk) {
    streamed.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
    ++chunks;
  });
  EXPECT_GT(chunks, 1U);  // streamed, not collected
  EXPECT_EQ(streamed, merged.substr(png_at));

  ScreenshotOptions device_png;
  device_png.encode_on_host = false;
  const EncodedImage image = screenshot(two.device, device_png);
  EXPECT_EQ(image.width, 1080U);
  EXPECT_EQ(std::string(image.bytes.begin(), image.bytes.end()), merged.substr(png_at));

  const RawImage raw = screencap_raw(two.device);
  EXPECT_EQ(raw.width, 1080U);
  EXPECT_EQ(decode_png(image.bytes).rgba, raw.pixels);
}

// ---- a screen graph whose screens have PNGs of their own

namespace fs = std::filesystem;

// A solid-colour RGBA image encoded by libspng, not by the code under test.
std::string encode_solid_png(std::uint32_t width, std::uint32_t height, std::uint8_t r,
                             std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint8_t> rgba;
  for (std::uint32_t i = 0; i < width * height; ++i) rgba.insert(rgba.end(), {r, g, b, 0xff});
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                          spng_ctx_free);
  spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{};
  ihdr.width = width;
  ihdr.height = height;
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  spng_set_ihdr(ctx.get(), &ihdr);
  EXPECT_EQ(
      spng_encode_image(ctx.get(), rgba.data(), rgba.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE),
      0);
  std::size_t size = 0;
  int error = 0;
  std::unique_ptr<void, decltype(&std::free)> buffer(spng_get_png_buffer(ctx.get(), &size, &error),
                                                     std::free);
  EXPECT_EQ(error, 0);
  const char* bytes = static_cast<const char*>(buffer.get());
  return bytes == nullptr ? std::string() : std::string(bytes, size);
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A one-node uiautomator dump showing `text` over the whole screen.
std::string one_node_dump(const std::string& text) {
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
         "<node index=\"0\" text=\"" +
         text +
         "\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
         "package=\"com.example.png\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
         "clickable=\"true\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
         "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
         "bounds=\"[0,0][1080,2400]\" /></hierarchy>";
}

// Two screens, "first" (a red 4x6 PNG) and "second" (a blue 6x4 PNG); a tap anywhere on the
// first goes to the second, back returns. Sizes differ too, so a mix-up shows in the header.
struct TwoPngScreens {
  TwoPngScreens() {
    first_png = encode_solid_png(4, 6, 0xff, 0, 0);
    second_png = encode_solid_png(6, 4, 0, 0, 0xff);
    write_file(dir.path() / "first.png", first_png);
    write_file(dir.path() / "second.png", second_png);
    write_file(dir.path() / "first.xml", one_node_dump("First"));
    write_file(dir.path() / "second.xml", one_node_dump("Second"));
    write_file(dir.path() / "screens.xml",
               "<screens start=\"first\">\n"
               "  <screen name=\"first\" dump=\"first.xml\" png=\"first.png\">\n"
               "    <tap bounds=\"[0,0][1080,2400]\" goto=\"second\"/>\n"
               "  </screen>\n"
               "  <screen name=\"second\" dump=\"second.xml\" png=\"second.png\"/>\n"
               "</screens>\n");
  }
  test::TempDir dir;
  std::string first_png;
  std::string second_png;
};

std::string streamed_png(Device& device) {
  std::string out;
  screencap_png(device, [&](std::span<const std::uint8_t> chunk) {
    out.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
  });
  return out;
}

TEST(ScreencapScreenGraph, EachScreenShowsItsOwnPng) {
  TwoPngScreens screens;
  ASSERT_FALSE(screens.first_png.empty());
  VirtualDeviceOptions options;
  options.screens = screens.dir.path();
  Configured configured(options);
  Device& device = configured.device;

  // The device's PNG is the screen's file, byte for byte, and raw screencap decodes it.
  EXPECT_EQ(device.exec("screencap -p"), screens.first_png);
  EXPECT_EQ(streamed_png(device), screens.first_png);
  RawImage raw = screencap_raw(device);
  EXPECT_EQ(raw.width, 4U);
  EXPECT_EQ(raw.height, 6U);
  EXPECT_EQ(raw.pixels, decode_png({screens.first_png.begin(), screens.first_png.end()}).rgba);

  device.shell("input tap 540 1200");
  EXPECT_EQ(device.exec("screencap -p"), screens.second_png);
  EXPECT_EQ(streamed_png(device), screens.second_png);
  raw = screencap_raw(device);
  EXPECT_EQ(raw.width, 6U);
  EXPECT_EQ(raw.height, 4U);
  EXPECT_EQ(raw.pixels, decode_png({screens.second_png.begin(), screens.second_png.end()}).rgba);

  // Back returns to the first screen, and to its picture.
  device.shell("input keyevent 4");
  EXPECT_EQ(device.exec("screencap -p"), screens.first_png);
}

}  // namespace
}  // namespace adbwire
