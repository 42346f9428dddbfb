#include "adbwire/protocol/message.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "adbwire/error.hpp"
#include "test_support.hpp"

namespace adbwire::protocol {
namespace {

using test::bytes;
using test::wire;

TEST(Constants, CommandsAreTheirAsciiNameReadLittleEndian) {
  const std::pair<std::uint32_t, std::string_view> commands[] = {
      {kCommandSync, "SYNC"}, {kCommandCnxn, "CNXN"}, {kCommandAuth, "AUTH"},
      {kCommandOpen, "OPEN"}, {kCommandOkay, "OKAY"}, {kCommandClse, "CLSE"},
      {kCommandWrte, "WRTE"}, {kCommandStls, "STLS"}};
  for (const auto& [command, ascii] : commands) {
    const std::vector<std::uint8_t> encoded = wire(command, 0, 0);
    EXPECT_EQ(std::string(encoded.begin(), encoded.begin() + 4), ascii);
    EXPECT_EQ(command_name(command), ascii);
  }
  EXPECT_EQ(command_name(0x12345678), "????");
  EXPECT_EQ(command_name(0), "????");
}

TEST(Constants, ValuesMatchAosp) {
  EXPECT_EQ(kVersionMin, 0x01000000u);
  EXPECT_EQ(kVersionSkipChecksum, 0x01000001u);
  EXPECT_EQ(kMaxPayloadV1, 4096u);
  EXPECT_EQ(kMaxPayload, 1048576u);
  EXPECT_EQ(kAuthToken, 1u);
  EXPECT_EQ(kAuthSignature, 2u);
  EXPECT_EQ(kAuthRsaPublicKey, 3u);
}

TEST(Message, OkayEncodesByteForByte) {
  const std::vector<std::uint8_t> expected = {'O',  'K',  'A',  'Y',    // command 0x59414b4f
                                              0x05, 0x00, 0x00, 0x00,   // arg0 = 5
                                              0x07, 0x01, 0x00, 0x00,   // arg1 = 0x107
                                              0x00, 0x00, 0x00, 0x00,   // data_length
                                              0x00, 0x00, 0x00, 0x00,   // data_check
                                              0xb0, 0xb4, 0xbe, 0xa6};  // magic = 0xa6beb4b0
  EXPECT_EQ(wire(kCommandOkay, 5, 0x107), expected);
}

TEST(Message, WrteWithAndWithoutChecksum) {
  const std::vector<std::uint8_t> payload = bytes("abc");  // 97 + 98 + 99 = 0x126
  const std::vector<std::uint8_t> with = wire(kCommandWrte, 1, 2, payload, true);
  const std::vector<std::uint8_t> without = wire(kCommandWrte, 1, 2, payload, false);
  const std::vector<std::uint8_t> header_with = {
      'W', 'R', 'T', 'E',  1,    0, 0, 0,    2,    0,    0,   0, 3,
      0,   0,   0,   0x26, 0x01, 0, 0, 0xa8, 0xad, 0xab, 0xba};  // magic = ~0x45545257 = 0xbaabada8
  ASSERT_EQ(with.size(), 27u);
  EXPECT_TRUE(std::equal(header_with.begin(), header_with.end(), with.begin()));
  EXPECT_EQ(std::string(with.begin() + 24, with.end()), "abc");
  ASSERT_EQ(without.size(), 27u);
  EXPECT_EQ(without[16], 0);
  EXPECT_EQ(without[17], 0);
  EXPECT_TRUE(std::equal(with.begin(), with.begin() + 16, without.begin()));
}

TEST(Message, CnxnEncodesByteForByte) {
  const std::vector<std::uint8_t> banner = bytes("host::features=cmd");
  const std::vector<std::uint8_t> encoded = wire(kCommandCnxn, kVersion, kMaxPayload, banner, true);
  std::uint32_t sum = 0;
  for (const std::uint8_t b : banner) sum += b;
  const std::vector<std::uint8_t> header = {'C',
                                            'N',
                                            'X',
                                            'N',
                                            0x01,
                                            0x00,
                                            0x00,
                                            0x01,
                                            0x00,
                                            0x00,
                                            0x10,
                                            0x00,
                                            static_cast<std::uint8_t>(banner.size()),
                                            0,
                                            0,
                                            0,
                                            static_cast<std::uint8_t>(sum),
                                            static_cast<std::uint8_t>(sum >> 8),
                                            0,
                                            0,
                                            0xbc,
                                            0xb1,
                                            0xa7,
                                            0xb1};  // magic = ~0x4e584e43 = 0xb1a7b1bc
  ASSERT_EQ(encoded.size(), 24 + banner.size());
  EXPECT_TRUE(std::equal(header.begin(), header.end(), encoded.begin()));
}

TEST(Message, EveryCommandHasMagicAsComplement) {
  for (const std::uint32_t command : {kCommandCnxn, kCommandAuth, kCommandOpen, kCommandOkay,
                                      kCommandClse, kCommandWrte, kCommandStls}) {
    const std::vector<std::uint8_t> encoded = wire(command, 1, 2);
    const Header header =
        decode_header(std::span<const std::uint8_t, kHeaderSize>(encoded.data(), kHeaderSize));
    EXPECT_EQ(header.magic, ~command);
    EXPECT_EQ(header.command, command);
  }
}

TEST(Message, ChecksumIsAByteSumNotACrc) {
  EXPECT_EQ(payload_checksum({}), 0u);
  const std::vector<std::uint8_t> ones(5000, 0xff);
  EXPECT_EQ(payload_checksum(ones), 5000u * 0xffu);
}

TEST(Message, HeaderRoundTrips) {
  const Header in{0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00, 0x01020304, 0xa0b0c0d0};
  std::uint8_t raw[kHeaderSize];
  encode_header(in, raw);
  EXPECT_EQ(raw[0], 0x44);
  EXPECT_EQ(raw[3], 0x11);
  const Header out = decode_header(raw);
  EXPECT_EQ(out.command, in.command);
  EXPECT_EQ(out.arg0, in.arg0);
  EXPECT_EQ(out.arg1, in.arg1);
  EXPECT_EQ(out.data_length, in.data_length);
  EXPECT_EQ(out.data_check, in.data_check);
  EXPECT_EQ(out.magic, in.magic);
}

// A stream of many messages of every command and a spread of payload sizes.
std::vector<std::uint8_t> sample_stream(std::vector<Message>& messages) {
  const std::uint32_t commands[] = {kCommandCnxn, kCommandAuth, kCommandOpen, kCommandOkay,
                                    kCommandWrte, kCommandClse, kCommandStls};
  std::vector<std::uint8_t> out;
  for (std::uint32_t i = 0; i < 60; ++i) {
    Message m;
    m.command = commands[i % std::size(commands)];
    m.arg0 = i;
    m.arg1 = 1000 - i;
    m.payload.resize((i * 37) % 301);
    for (std::size_t j = 0; j < m.payload.size(); ++j)
      m.payload[j] = static_cast<std::uint8_t>(i + j);
    append_message(out, m.command, m.arg0, m.arg1, m.payload, true);
    messages.push_back(std::move(m));
  }
  return out;
}

void expect_same(const std::vector<Message>& got, const std::vector<Message>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].command, expected[i].command);
    EXPECT_EQ(got[i].arg0, expected[i].arg0);
    EXPECT_EQ(got[i].arg1, expected[i].arg1);
    EXPECT_EQ(got[i].payload, expected[i].payload);
  }
}

// AOSP's habit: the same stream cut at every chunk size decodes to the same messages.
TEST(MessageReader, Chainsaw) {
  std::vector<Message> expected;
  const std::vector<std::uint8_t> stream = sample_stream(expected);
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    MessageReader reader;
    reader.set_verify_checksum(true);
    std::vector<Message> got;
    for (std::size_t at = 0; at < stream.size(); at += chunk) {
      const std::size_t n = std::min(chunk, stream.size() - at);
      ASSERT_FALSE(reader.feed(std::span(stream).subspan(at, n), got)) << reader.error_detail();
    }
    EXPECT_TRUE(reader.at_boundary());
    expect_same(got, expected);
    if (::testing::Test::HasFailure()) FAIL() << "chunk size " << chunk;
  }
}

TEST(MessageReader, FeedOneStopsAfterEachMessage) {
  std::vector<Message> expected;
  const std::vector<std::uint8_t> stream = sample_stream(expected);
  MessageReader reader;
  std::vector<Message> got;
  std::span<const std::uint8_t> rest(stream);
  std::error_code error;
  std::size_t calls = 0;
  while (!rest.empty()) {
    const std::size_t before = got.size();
    rest = rest.subspan(reader.feed_one(rest, got, error));
    ASSERT_FALSE(error);
    EXPECT_EQ(got.size(), before + 1);
    ++calls;
  }
  EXPECT_EQ(calls, expected.size());
  expect_same(got, expected);
}

TEST(MessageReader, AtBoundaryOnlyBetweenMessages) {
  const std::vector<std::uint8_t> m = wire(kCommandWrte, 1, 2, bytes("hello"));
  MessageReader reader;
  std::vector<Message> got;
  EXPECT_TRUE(reader.at_boundary());
  ASSERT_FALSE(reader.feed(std::span(m).first(3), got));
  EXPECT_FALSE(reader.at_boundary());
  ASSERT_FALSE(reader.feed(std::span(m).subspan(3, 23), got));
  EXPECT_FALSE(reader.at_boundary());
  ASSERT_FALSE(reader.feed(std::span(m).subspan(26), got));
  EXPECT_TRUE(reader.at_boundary());
  ASSERT_EQ(got.size(), 1u);
}

std::error_code feed_all(MessageReader& reader, const std::vector<std::uint8_t>& data,
                         std::vector<Message>& got) {
  return reader.feed(data, got);
}

TEST(MessageReader, BadMagicIsAProtocolError) {
  std::vector<std::uint8_t> m = wire(kCommandOkay, 1, 2);
  m[20] ^= 0x01;
  MessageReader reader;
  std::vector<Message> got;
  EXPECT_EQ(feed_all(reader, m, got), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("bad magic"), std::string::npos) << reader.error_detail();
  EXPECT_TRUE(got.empty());
}

TEST(MessageReader, OversizeLengthIsAProtocolErrorBeforeThePayloadArrives) {
  const std::vector<std::uint8_t> payload(5000, 'x');
  std::vector<std::uint8_t> m = wire(kCommandWrte, 1, 2, payload);
  m.resize(kHeaderSize);
  MessageReader reader(4096);
  std::vector<Message> got;
  EXPECT_EQ(feed_all(reader, m, got), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("oversize length"), std::string::npos);
  EXPECT_NE(reader.error_detail().find("5000"), std::string::npos);
}

TEST(MessageReader, UnknownCommandIsAProtocolErrorAfterFourBytes) {
  const std::vector<std::uint8_t> m = wire(0x5a5a5a5a, 1, 2);
  MessageReader reader;
  std::vector<Message> got;
  EXPECT_EQ(reader.feed(std::span(m).first(4), got), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("unknown command 0x5a5a5a5a"), std::string::npos)
      << reader.error_detail();
}

TEST(MessageReader, ChecksumVerifiedOnlyWhenAsked) {
  std::vector<std::uint8_t> m = wire(kCommandWrte, 1, 2, bytes("abc"), true);
  m[16] ^= 0xff;
  {
    MessageReader reader;
    std::vector<Message> got;
    EXPECT_FALSE(feed_all(reader, m, got));
    EXPECT_EQ(got.size(), 1u);
  }
  MessageReader reader;
  reader.set_verify_checksum(true);
  std::vector<Message> got;
  EXPECT_EQ(feed_all(reader, m, got), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("checksum mismatch"), std::string::npos);
}

TEST(MessageReader, MessagesBeforeGarbageAreDeliveredThenItStaysFailed) {
  std::vector<std::uint8_t> data = wire(kCommandOkay, 1, 2);
  const std::vector<std::uint8_t> second = wire(kCommandClse, 1, 2);
  data.insert(data.end(), second.begin(), second.end());
  const std::vector<std::uint8_t> garbage(30, 0xee);
  data.insert(data.end(), garbage.begin(), garbage.end());
  MessageReader reader;
  std::vector<Message> got;
  EXPECT_EQ(feed_all(reader, data, got), errc::protocol_error);
  EXPECT_EQ(got.size(), 2u);
  const std::string detail = reader.error_detail();
  got.clear();
  EXPECT_EQ(reader.feed(wire(kCommandOkay, 1, 2), got), errc::protocol_error);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(reader.error_detail(), detail);
}

}  // namespace
}  // namespace adbwire::protocol
