// protocol/bytes.hpp against byte strings written out by hand: every width both ways, the
// run-time order of pcap files, stores that touch exactly their width, round trips, and text
// viewed as bytes.
#include "adbwire/protocol/bytes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace adbwire::protocol {
namespace {

// Eight distinct bytes with the high bit set in some, so a sign extension would show.
constexpr std::array<std::uint8_t, 8> kBytes = {0x01, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07, 0xf8};

TEST(Bytes, LittleEndianLoads) {
  EXPECT_EQ(load_le16(kBytes.data()), 0x8201u);
  EXPECT_EQ(load_le32(kBytes.data()), 0x84038201u);
  EXPECT_EQ(load_le64(kBytes.data()), 0xf807860584038201u);
  EXPECT_EQ(load_le32(kBytes.data() + 4), 0xf8078605u);
}

TEST(Bytes, BigEndianLoads) {
  EXPECT_EQ(load_be16(kBytes.data()), 0x0182u);
  EXPECT_EQ(load_be32(kBytes.data()), 0x01820384u);
  EXPECT_EQ(load_be64(kBytes.data()), 0x01820384058607f8u);
}

TEST(Bytes, OrderChosenAtRunTime) {
  EXPECT_EQ(load_u16(kBytes.data(), false), load_le16(kBytes.data()));
  EXPECT_EQ(load_u16(kBytes.data(), true), load_be16(kBytes.data()));
  EXPECT_EQ(load_u32(kBytes.data(), false), load_le32(kBytes.data()));
  EXPECT_EQ(load_u32(kBytes.data(), true), load_be32(kBytes.data()));
  EXPECT_EQ(load_u64(kBytes.data(), false), load_le64(kBytes.data()));
  EXPECT_EQ(load_u64(kBytes.data(), true), load_be64(kBytes.data()));
}

TEST(Bytes, StoresWriteExactlyTheirWidth) {
  std::array<std::uint8_t, 10> buffer{};
  buffer.fill(0xee);
  store_le16(buffer.data() + 1, 0x8201);
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 10>{0xee, 0x01, 0x82, 0xee, 0xee, 0xee, 0xee, 0xee,
                                                  0xee, 0xee}));
  buffer.fill(0xee);
  store_le32(buffer.data() + 1, 0x84038201u);
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 10>{0xee, 0x01, 0x82, 0x03, 0x84, 0xee, 0xee, 0xee,
                                                  0xee, 0xee}));
  buffer.fill(0xee);
  store_le64(buffer.data() + 1, 0xf807860584038201u);
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 10>{0xee, 0x01, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07,
                                                  0xf8, 0xee}));
  buffer.fill(0xee);
  store_be16(buffer.data() + 1, 0x0182);
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 10>{0xee, 0x01, 0x82, 0xee, 0xee, 0xee, 0xee, 0xee,
                                                  0xee, 0xee}));
  buffer.fill(0xee);
  store_be32(buffer.data() + 1, 0x01820384u);
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 10>{0xee, 0x01, 0x82, 0x03, 0x84, 0xee, 0xee, 0xee,
                                                  0xee, 0xee}));
}

TEST(Bytes, AppendsGrowByTheirWidthInOrder) {
  std::vector<std::uint8_t> out{0xaa};
  append_le16(out, 0x8201);
  append_le32(out, 0x84038201u);
  append_le64(out, 0xf807860584038201u);
  append_be16(out, 0x0182);
  append_be32(out, 0x01820384u);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0xaa, 0x01, 0x82, 0x01, 0x82, 0x03, 0x84,
                                            0x01, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07,
                                            0xf8, 0x01, 0x82, 0x01, 0x82, 0x03, 0x84}));
}

TEST(Bytes, RoundTripsExtremes) {
  for (const std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0},
                                std::uint64_t{0x8000000000000000u}, std::uint64_t{0x7fffffffu}}) {
    std::array<std::uint8_t, 8> buffer{};
    store_le64(buffer.data(), v);
    EXPECT_EQ(load_le64(buffer.data()), v);
    store_le32(buffer.data(), static_cast<std::uint32_t>(v));
    EXPECT_EQ(load_le32(buffer.data()), static_cast<std::uint32_t>(v));
    store_be32(buffer.data(), static_cast<std::uint32_t>(v));
    EXPECT_EQ(load_be32(buffer.data()), static_cast<std::uint32_t>(v));
    store_le16(buffer.data(), static_cast<std::uint16_t>(v));
    EXPECT_EQ(load_le16(buffer.data()), static_cast<std::uint16_t>(v));
    store_be16(buffer.data(), static_cast<std::uint16_t>(v));
    EXPECT_EQ(load_be16(buffer.data()), static_cast<std::uint16_t>(v));
  }
}

TEST(Bytes, TextViewedAsBytes) {
  const std::string_view text("a\0\xff", 3);
  const std::span<const std::uint8_t> bytes = bytes_of(text);
  ASSERT_EQ(bytes.size(), 3u);
  EXPECT_EQ(static_cast<const void*>(bytes.data()), static_cast<const void*>(text.data()));
  EXPECT_EQ(bytes[0], 'a');
  EXPECT_EQ(bytes[1], 0);
  EXPECT_EQ(bytes[2], 0xff);
  EXPECT_TRUE(bytes_of("").empty());
}

// Usable where a constant is needed: a header field checked at compile time.
static_assert(load_le32(kBytes.data()) == 0x84038201u);
static_assert(load_be16(kBytes.data() + 6) == 0x07f8u);

}  // namespace
}  // namespace adbwire::protocol
