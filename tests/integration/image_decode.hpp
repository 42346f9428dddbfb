// Decoding images in tests with the reference libraries (libspng, libturbojpeg), so what
// adbwire encodes or passes through is checked by an independent decoder. Header-only; the
// test target links PkgConfig::spng and PkgConfig::turbojpeg.
#pragma once

#include <gtest/gtest.h>
#include <spng.h>
#include <turbojpeg.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace adbwire::test {

struct Decoded {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba;
};

inline Decoded decode_png(const std::vector<std::uint8_t>& png) {
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(0), spng_ctx_free);
  spng_set_png_buffer(ctx.get(), png.data(), png.size());
  spng_ihdr ihdr{};
  EXPECT_EQ(spng_get_ihdr(ctx.get(), &ihdr), 0);
  std::size_t size = 0;
  EXPECT_EQ(spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &size), 0);
  Decoded d{ihdr.width, ihdr.height, std::vector<std::uint8_t>(size)};
  EXPECT_EQ(spng_decode_image(ctx.get(), d.rgba.data(), size, SPNG_FMT_RGBA8, 0), 0);
  return d;
}

inline Decoded decode_jpeg(const std::vector<std::uint8_t>& jpeg) {
  std::unique_ptr<void, decltype(&tjDestroy)> tj(tjInitDecompress(), tjDestroy);
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  EXPECT_EQ(tjDecompressHeader3(tj.get(), jpeg.data(), jpeg.size(), &width, &height, &subsampling,
                                &colorspace),
            0);
  Decoded d{static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height),
            std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 4)};
  EXPECT_EQ(tjDecompress2(tj.get(), jpeg.data(), jpeg.size(), d.rgba.data(), width, 0, height,
                          TJPF_RGBA, 0),
            0);
  return d;
}

}  // namespace adbwire::test
