// framebuffer: headers byte for byte against the layout of AOSP daemon/framebuffer_service.cpp.
#include "adbwire/protocol/framebuffer.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

std::vector<std::uint8_t> words(std::initializer_list<std::uint32_t> values) {
  std::vector<std::uint8_t> out;
  for (std::uint32_t v : values) append_le32(out, v);
  return out;
}

// RGBA_8888 1080x2400 as adbd sends it: version, bpp, colorSpace, size, width, height, then
// red, blue, green, alpha (offset, length) — blue before green, as in struct fbinfo.
const std::vector<std::uint8_t> kVersion2 =
    words({2, 32, 1, 1080 * 2400 * 4, 1080, 2400, 0, 8, 16, 8, 8, 8, 24, 8});

TEST(Framebuffer, Version2IsFiftySixBytesWithColorSpace) {
  FramebufferHeader h;
  std::size_t used = 0;
  std::string reason;
  ASSERT_EQ(parse_framebuffer_header(kVersion2, h, used, reason), FramebufferParse::ok) << reason;
  EXPECT_EQ(used, 56U);
  EXPECT_EQ(h.bpp, 32U);
  EXPECT_EQ(h.color_space, 1U);
  EXPECT_EQ(h.width, 1080U);
  EXPECT_EQ(h.height, 2400U);
  EXPECT_EQ(h.red, (FramebufferChannel{0, 8}));
  EXPECT_EQ(h.blue, (FramebufferChannel{16, 8}));
  EXPECT_EQ(h.green, (FramebufferChannel{8, 8}));
  EXPECT_EQ(h.alpha, (FramebufferChannel{24, 8}));
  EXPECT_EQ(encode_framebuffer_header(h), kVersion2);
}

TEST(Framebuffer, Version1HasNoColorSpace) {
  const auto bytes = words({1, 16, 320 * 480 * 2, 320, 480, 11, 5, 0, 5, 5, 6, 0, 0});
  FramebufferHeader h;
  std::size_t used = 0;
  std::string reason;
  ASSERT_EQ(parse_framebuffer_header(bytes, h, used, reason), FramebufferParse::ok) << reason;
  EXPECT_EQ(used, 52U);
  EXPECT_EQ(h.color_space, 0U);
  EXPECT_EQ(h.green, (FramebufferChannel{5, 6}));
  EXPECT_EQ(encode_framebuffer_header(h), bytes);
}

TEST(Framebuffer, AncientSixteenByteHeaderIsRgb565) {
  const auto bytes = words({16, 320 * 240 * 2, 320, 240});
  FramebufferHeader h;
  std::size_t used = 0;
  std::string reason;
  ASSERT_EQ(parse_framebuffer_header(bytes, h, used, reason), FramebufferParse::ok) << reason;
  EXPECT_EQ(used, 16U);
  EXPECT_EQ(h.bpp, 16U);
  EXPECT_EQ(h.red, (FramebufferChannel{11, 5}));
  EXPECT_EQ(encode_framebuffer_header(h), bytes);
}

TEST(Framebuffer, EveryShorterPrefixNeedsMore) {
  for (std::size_t n = 0; n < kVersion2.size(); ++n) {
    FramebufferHeader h;
    std::size_t used = 0;
    std::string reason;
    EXPECT_EQ(parse_framebuffer_header(std::span(kVersion2).first(n), h, used, reason),
              FramebufferParse::need_more)
        << n << " bytes";
  }
}

TEST(Framebuffer, HeadersAdbdNeverSendsAreInvalidWithAReason) {
  const std::vector<std::pair<std::vector<std::uint8_t>, const char*>> cases = {
      {words({3, 32, 0, 4, 1, 1, 0, 8, 16, 8, 8, 8, 24, 8}), "version 3"},
      {words({2, 12, 0, 4, 1, 1, 0, 8, 16, 8, 8, 8, 24, 8}), "bpp 12"},
      {words({2, 32, 0, 0, 0, 1, 0, 8, 16, 8, 8, 8, 24, 8}), "0x1"},
      {words({2, 32, 0, 8, 1, 1, 0, 8, 16, 8, 8, 8, 24, 8}), "8 pixel bytes"},
      {words({2, 32, 0, 4, 1, 1, 30, 8, 16, 8, 8, 8, 24, 8}), "offset 30"},
      {words({2, 32, 0, 0, 65536, 65536, 0, 8, 16, 8, 8, 8, 24, 8}), "larger than"},
  };
  for (const auto& [bytes, fragment] : cases) {
    FramebufferHeader h;
    std::size_t used = 0;
    std::string reason;
    EXPECT_EQ(parse_framebuffer_header(bytes, h, used, reason), FramebufferParse::invalid)
        << fragment;
    EXPECT_NE(reason.find(fragment), std::string::npos) << reason;
  }
}

}  // namespace
}  // namespace adbwire::protocol
