#include "adbwire/protocol/shell_v2.hpp"

#include <gtest/gtest.h>

#include <map>

#include "adbwire/error.hpp"
#include "test_support.hpp"

namespace adbwire::protocol {
namespace {

using test::bytes;

TEST(ShellV2, PacketEncodesByteForByte) {
  std::vector<std::uint8_t> out;
  append_shell_packet(out, ShellPacketId::stdout_data, bytes("hi"));
  append_shell_packet(out, ShellPacketId::exit_status, std::vector<std::uint8_t>{42});
  append_shell_packet(out, ShellPacketId::close_stdin, {});
  const std::vector<std::uint8_t> expected = {1, 2, 0, 0,  0, 'h', 'i', 3, 1,
                                              0, 0, 0, 42, 4, 0,   0,   0, 0};
  EXPECT_EQ(out, expected);
}

TEST(ShellV2, IdsMatchAosp) {
  EXPECT_EQ(static_cast<int>(ShellPacketId::stdin_data), 0);
  EXPECT_EQ(static_cast<int>(ShellPacketId::stdout_data), 1);
  EXPECT_EQ(static_cast<int>(ShellPacketId::stderr_data), 2);
  EXPECT_EQ(static_cast<int>(ShellPacketId::exit_status), 3);
  EXPECT_EQ(static_cast<int>(ShellPacketId::close_stdin), 4);
  EXPECT_EQ(static_cast<int>(ShellPacketId::window_size), 5);
  EXPECT_EQ(static_cast<int>(ShellPacketId::invalid), 255);
}

struct Collected {
  std::map<ShellPacketId, std::string> data;  // stdin/stdout/stderr concatenated
  std::vector<ShellPiece> control;
};

Collected collect(const std::vector<ShellPiece>& pieces) {
  Collected c;
  for (const ShellPiece& p : pieces) {
    if (p.id == ShellPacketId::stdout_data || p.id == ShellPacketId::stderr_data ||
        p.id == ShellPacketId::stdin_data) {
      EXPECT_FALSE(p.data.empty());
      c.data[p.id] += test::text(p.data);
    } else {
      c.control.push_back(p);
    }
  }
  return c;
}

TEST(ShellV2, ChainsawDeliversTheSameStreamsAtEveryCut) {
  std::vector<std::uint8_t> stream;
  std::string out_expected;
  std::string err_expected;
  for (int i = 0; i < 40; ++i) {
    std::string out(static_cast<std::size_t>(i * 13 % 97), static_cast<char>('a' + i % 26));
    std::string err(static_cast<std::size_t>(i % 5), static_cast<char>('A' + i % 26));
    append_shell_packet(stream, ShellPacketId::stdout_data, bytes(out));
    append_shell_packet(stream, ShellPacketId::stderr_data, bytes(err));
    out_expected += out;
    err_expected += err;
  }
  append_shell_packet(stream, ShellPacketId::window_size, bytes("24x80,0x0"));
  append_shell_packet(stream, ShellPacketId::close_stdin, {});
  append_shell_packet(stream, ShellPacketId::exit_status, std::vector<std::uint8_t>{7});

  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    ShellReader reader;
    std::vector<ShellPiece> pieces;
    for (std::size_t at = 0; at < stream.size(); at += chunk) {
      const std::size_t n = std::min(chunk, stream.size() - at);
      ASSERT_FALSE(reader.feed(std::span(stream).subspan(at, n), pieces)) << reader.error_detail();
    }
    EXPECT_TRUE(reader.at_boundary());
    Collected c = collect(pieces);
    EXPECT_EQ(c.data[ShellPacketId::stdout_data], out_expected);
    EXPECT_EQ(c.data[ShellPacketId::stderr_data], err_expected);
    ASSERT_EQ(c.control.size(), 3u);
    EXPECT_EQ(c.control[0].id, ShellPacketId::window_size);
    EXPECT_EQ(test::text(c.control[0].data), "24x80,0x0");
    EXPECT_EQ(c.control[1].id, ShellPacketId::close_stdin);
    EXPECT_TRUE(c.control[1].data.empty());
    EXPECT_EQ(c.control[2].id, ShellPacketId::exit_status);
    EXPECT_EQ(c.control[2].data, std::vector<std::uint8_t>{7});
    if (::testing::Test::HasFailure()) FAIL() << "chunk size " << chunk;
  }
}

TEST(ShellV2, HugeDataPacketIsStreamedNotBuffered) {
  std::vector<std::uint8_t> header = {1, 0, 0, 0, 0x40};  // stdout, 1 GiB declared
  ShellReader reader;
  std::vector<ShellPiece> pieces;
  ASSERT_FALSE(reader.feed(header, pieces));
  ASSERT_FALSE(reader.feed(bytes("0123456789"), pieces));
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(test::text(pieces[0].data), "0123456789");
  EXPECT_FALSE(reader.at_boundary());
}

TEST(ShellV2, UnknownIdIsAProtocolError) {
  ShellReader reader;
  std::vector<ShellPiece> pieces;
  const std::vector<std::uint8_t> packet = {9, 0, 0, 0, 0};
  EXPECT_EQ(reader.feed(packet, pieces), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("unknown shell protocol packet id 9"), std::string::npos);
  // It stays failed: even a valid packet is refused afterwards.
  std::vector<std::uint8_t> valid;
  append_shell_packet(valid, ShellPacketId::stdout_data, bytes("x"));
  EXPECT_EQ(reader.feed(valid, pieces), errc::protocol_error);
  EXPECT_TRUE(pieces.empty());
}

TEST(ShellV2, OversizeControlPacketIsAProtocolError) {
  ShellReader reader;
  std::vector<ShellPiece> pieces;
  const std::vector<std::uint8_t> packet = {5, 0x01, 0x10, 0, 0};  // window size, 4097 bytes
  EXPECT_EQ(reader.feed(packet, pieces), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("4097"), std::string::npos);
}

TEST(ShellV2, ExitPacketMustCarryOneByte) {
  ShellReader reader;
  std::vector<ShellPiece> pieces;
  const std::vector<std::uint8_t> packet = {3, 0, 0, 0, 0};
  EXPECT_EQ(reader.feed(packet, pieces), errc::protocol_error);
  EXPECT_NE(reader.error_detail().find("exit"), std::string::npos);
}

TEST(ShellV2, InvalidIdIsDeliveredWhole) {
  std::vector<std::uint8_t> stream;
  append_shell_packet(stream, ShellPacketId::invalid, bytes("zz"));
  ShellReader reader;
  std::vector<ShellPiece> pieces;
  ASSERT_FALSE(reader.feed(stream, pieces));
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].id, ShellPacketId::invalid);
  EXPECT_EQ(test::text(pieces[0].data), "zz");
}

}  // namespace
}  // namespace adbwire::protocol

namespace adbwire::protocol {
namespace {

TEST(WindowSizePacket, EncodesAsAdbAndParsesBack) {
  const WindowSize size{40, 120, 960, 1440};
  const std::vector<std::uint8_t> data = encode_window_size(size);
  EXPECT_EQ(std::string(data.begin(), data.end()), std::string("40x120,960x1440\0", 16));
  WindowSize parsed;
  ASSERT_TRUE(parse_window_size(data, parsed));
  EXPECT_EQ(parsed, size);
}

TEST(WindowSizePacket, RefusesAnythingElse) {
  WindowSize parsed{1, 2, 3, 4};
  for (const std::string text : {"", "24x80", "24x80,0", "24x80,0x0,", "70000x1,0x0", "-1x2,0x0",
                                 "24 x80,0x0", "24x80;0x0"}) {
    EXPECT_FALSE(parse_window_size(
        std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), parsed))
        << text;
  }
  EXPECT_EQ(parsed, (WindowSize{1, 2, 3, 4}));  // untouched
}

}  // namespace
}  // namespace adbwire::protocol
