// pcap / pcapng record layer: both byte orders, timestamp resolutions, several interfaces,
// input split anywhere, and truncation/corruption reported with record index and offset.
#include "capture/record_parser.hpp"

#include <gtest/gtest.h>

#include "adbwire/error.hpp"
#include "unit/capture/capture_test_support.hpp"

namespace adbwire::capture_test {
namespace {

using capture_detail::RawRecord;
using capture_detail::RecordParser;

struct Seen {
  std::uint64_t number;
  std::uint64_t offset;
  std::uint32_t link_type;
  std::int64_t time_ns;
  Bytes data;
};

std::vector<Seen> parse(std::span<const std::uint8_t> file, std::size_t chunk, std::error_code& ec,
                        RecordParser& parser) {
  std::vector<Seen> seen;
  const auto sink = [&](const RawRecord& r) {
    seen.push_back(
        {r.number, r.offset, r.link_type, r.time_ns, Bytes(r.data.begin(), r.data.end())});
  };
  ec.clear();
  for (std::size_t pos = 0; pos < file.size() && !ec; pos += chunk) {
    ec = parser.feed(file.subspan(pos, std::min(chunk, file.size() - pos)), sink);
  }
  if (!ec) ec = parser.finish();
  return seen;
}

const std::vector<Packet> kPackets = {
    {0, 1'700'000'000'123'456'000, bytes_of("first")},
    {0, 1'700'000'001'000'001'000, bytes_of("second packet")},
    {0, 1'700'000'002'999'999'000, bytes_of("")},
};

TEST(RecordParser, PcapBothByteOrdersAndResolutionsAtEveryChunkSize) {
  for (const bool big : {false, true}) {
    for (const bool nano : {false, true}) {
      const Bytes file = pcap_file(113, kPackets, big, nano);
      for (std::size_t chunk = 1; chunk <= file.size(); ++chunk) {
        RecordParser parser;
        std::error_code ec;
        const auto seen = parse(file, chunk, ec, parser);
        ASSERT_FALSE(ec) << parser.fault().detail;
        ASSERT_EQ(seen.size(), 3u);
        for (std::size_t i = 0; i < 3; ++i) {
          EXPECT_EQ(seen[i].number, i + 1);
          EXPECT_EQ(seen[i].link_type, 113u);
          EXPECT_EQ(seen[i].time_ns, static_cast<std::int64_t>(kPackets[i].time_ns));
          EXPECT_EQ(seen[i].data, kPackets[i].data);
        }
        EXPECT_EQ(seen[0].offset, 24u);
        EXPECT_EQ(seen[1].offset, 24u + 16 + 5);
      }
    }
  }
}

TEST(RecordParser, PcapngInterfacesWithTheirOwnLinkTypesAndResolutions) {
  for (const bool big : {false, true}) {
    const std::vector<PcapngInterface> interfaces = {{1, -1}, {113, 9}, {220, 3}};
    const std::vector<Packet> packets = {
        {1, 1'600'000'000'000'000'007, bytes_of("ns")},
        {0, 1'600'000'000'000'001'000, bytes_of("us")},
        {2, 1'600'000'000'005'000'000, bytes_of("ms!")},
    };
    const Bytes file = pcapng_file(interfaces, packets, big);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, file.size()}) {
      RecordParser parser;
      std::error_code ec;
      const auto seen = parse(file, chunk, ec, parser);
      ASSERT_FALSE(ec) << parser.fault().detail;
      ASSERT_EQ(seen.size(), 3u);
      EXPECT_EQ(seen[0].link_type, 113u);
      EXPECT_EQ(seen[0].time_ns, 1'600'000'000'000'000'007);
      EXPECT_EQ(seen[1].link_type, 1u);
      EXPECT_EQ(seen[1].time_ns, 1'600'000'000'000'001'000);
      EXPECT_EQ(seen[2].link_type, 220u);
      EXPECT_EQ(seen[2].time_ns, 1'600'000'000'005'000'000);
      EXPECT_EQ(seen[2].data, bytes_of("ms!"));
    }
  }
}

TEST(RecordParser, TruncatedPcapNamesTheRecordAndOffsetAndKeepsEarlierRecords) {
  const Bytes file = pcap_file(1, kPackets);
  const std::size_t second = 24 + 16 + 5;
  for (std::size_t cut = second + 1; cut < second + 16 + 13; ++cut) {
    RecordParser parser;
    std::error_code ec;
    const auto seen = parse(std::span(file).first(cut), 3, ec, parser);
    EXPECT_EQ(ec, errc::parse_error);
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(parser.fault().record_index, 2u);
    EXPECT_EQ(parser.fault().byte_offset, second);
    EXPECT_NE(parser.fault().detail.find("truncated"), std::string::npos) << parser.fault().detail;
  }
}

TEST(RecordParser, TruncatedHeaderIsRecordZero) {
  const Bytes file = pcapng_file({{1, -1}}, kPackets);
  RecordParser parser;
  std::error_code ec;
  parse(std::span(file).first(10), 4, ec, parser);
  EXPECT_EQ(ec, errc::parse_error);
  EXPECT_EQ(parser.fault().record_index, 0u);
  EXPECT_EQ(parser.fault().byte_offset, 0u);
}

TEST(RecordParser, CorruptBlockLengthIsAParseErrorAtThatBlock) {
  Bytes file = pcapng_file({{1, -1}}, kPackets);
  // Second enhanced packet block: after SHB (28), IDB (20) and the first EPB (32 + 8 = 40).
  const std::size_t block = 28 + 20 + 40;
  ASSERT_EQ(file[block], 6);
  file[block + 4] = 0x13;  // length not a multiple of 4
  RecordParser parser;
  std::error_code ec;
  const auto seen = parse(file, file.size(), ec, parser);
  EXPECT_EQ(ec, errc::parse_error);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(parser.fault().record_index, 2u);
  EXPECT_EQ(parser.fault().byte_offset, block);
  EXPECT_NE(parser.fault().detail.find("invalid length"), std::string::npos);
}

TEST(RecordParser, MismatchedTrailingLengthIsCorrupt) {
  Bytes file = pcapng_file({{1, -1}}, kPackets);
  file[28 + 20 + 40 - 4] ^= 0x04;
  RecordParser parser;
  std::error_code ec;
  parse(file, file.size(), ec, parser);
  EXPECT_EQ(ec, errc::parse_error);
  EXPECT_EQ(parser.fault().record_index, 1u);
}

TEST(RecordParser, PacketOnUndescribedInterfaceIsAnError) {
  const Bytes file = pcapng_file({{1, -1}, {1, -1}}, {{1, 0, bytes_of("x")}});
  Bytes broken = file;
  broken.erase(broken.begin() + 48, broken.begin() + 68);  // drop the second interface block
  RecordParser parser;
  std::error_code ec;
  parse(broken, broken.size(), ec, parser);
  EXPECT_EQ(ec, errc::parse_error);
  EXPECT_NE(parser.fault().detail.find("interface 1"), std::string::npos) << parser.fault().detail;
}

TEST(RecordParser, NotACaptureAtAll) {
  const Bytes file = bytes_of("<?xml version='1.0'?><hierarchy/>");
  RecordParser parser;
  std::error_code ec;
  parse(file, file.size(), ec, parser);
  EXPECT_EQ(ec, errc::parse_error);
  EXPECT_NE(parser.fault().detail.find("not a pcap or pcapng"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::capture_test
