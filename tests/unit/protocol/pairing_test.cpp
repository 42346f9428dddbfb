// The pairing framing against AOSP's pairing_connection.cpp: header bytes (length big-endian),
// the checks ReadHeader makes, and the fixed-size PeerInfo.
#include "adbwire/protocol/pairing.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "adbwire/error.hpp"

namespace adbwire::protocol {
namespace {

TEST(PairingHeader, EncodesVersionTypeAndBigEndianLength) {
  const auto header = encode_pairing_header(PairingPacketType::peer_info, 0x00002010);
  EXPECT_EQ(header, (std::array<std::uint8_t, 6>{1, 1, 0x00, 0x00, 0x20, 0x10}));
  PairingHeader parsed;
  std::string why;
  ASSERT_FALSE(parse_pairing_header(header, parsed, why)) << why;
  EXPECT_EQ(parsed.type, PairingPacketType::peer_info);
  EXPECT_EQ(parsed.length, 0x2010u);
}

TEST(PairingHeader, RefusesWhatAospRefuses) {
  struct Case {
    std::array<std::uint8_t, 6> bytes;
    const char* said;
  };
  const Case cases[] = {
      {{2, 0, 0, 0, 0, 32}, "version 2"},
      {{0, 0, 0, 0, 0, 32}, "version 0"},
      {{1, 2, 0, 0, 0, 32}, "type 2"},
      {{1, 0, 0, 0, 0, 0}, "0 bytes"},
      {{1, 1, 0, 0, 0x40, 0x01}, "16385 bytes"},
      {{1, 1, 0xff, 0xff, 0xff, 0xff}, "4294967295 bytes"},
  };
  for (const Case& c : cases) {
    PairingHeader parsed;
    std::string why;
    EXPECT_EQ(parse_pairing_header(c.bytes, parsed, why), make_error_code(errc::protocol_error));
    EXPECT_NE(why.find(c.said), std::string::npos) << why;
  }
  PairingHeader parsed;
  std::string why;
  EXPECT_FALSE(parse_pairing_header(std::array<std::uint8_t, 6>{1, 1, 0, 0, 0x40, 0}, parsed, why))
      << "16384 is the largest payload";
}

TEST(PeerInfo, IsEightKilobytesOfTypeDataAndNuls) {
  std::vector<std::uint8_t> bytes;
  ASSERT_FALSE(encode_peer_info(PeerInfoType::device_guid, "adb-XYZ-abc123", bytes));
  ASSERT_EQ(bytes.size(), kPeerInfoSize);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(std::string(bytes.begin() + 1, bytes.begin() + 15), "adb-XYZ-abc123");
  EXPECT_TRUE(std::all_of(bytes.begin() + 15, bytes.end(), [](std::uint8_t b) { return b == 0; }));
  PeerInfo info;
  std::string why;
  ASSERT_FALSE(parse_peer_info(bytes, info, why)) << why;
  EXPECT_EQ(info.type, 1);
  EXPECT_EQ(info.data, "adb-XYZ-abc123");

  EXPECT_EQ(encode_peer_info(PeerInfoType::rsa_public_key, std::string(8191, 'k'), bytes),
            make_error_code(errc::invalid_argument));
  EXPECT_FALSE(encode_peer_info(PeerInfoType::rsa_public_key, std::string(8190, 'k'), bytes));
  EXPECT_EQ(encode_peer_info(PeerInfoType::rsa_public_key, std::string("a\0b", 3), bytes),
            make_error_code(errc::invalid_argument));
}

TEST(PeerInfo, RefusesOtherSizesAndDataWithoutANul) {
  PeerInfo info;
  std::string why;
  std::vector<std::uint8_t> short_info(kPeerInfoSize - 1, 0);
  EXPECT_EQ(parse_peer_info(short_info, info, why), make_error_code(errc::protocol_error));
  std::vector<std::uint8_t> full(kPeerInfoSize, 'x');
  EXPECT_EQ(parse_peer_info(full, info, why), make_error_code(errc::protocol_error));
  EXPECT_NE(why.find("NUL"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::protocol
