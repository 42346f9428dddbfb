#include "adbwire/protocol/session.hpp"

#include <gtest/gtest.h>

#include <map>

#include "adbwire/error.hpp"
#include "session_test_support.hpp"
#include "test_support.hpp"

namespace adbwire::protocol {
namespace {

using test::bytes;
using test::decode;
using test::device_options;
using test::headers;
using test::host_options;
using test::le32;
using test::take_bytes;
using test::take_events;
using test::take_output;
using test::text;
using test::wire;

using test::kToken;
using test::online_device;
using test::online_host;
using test::open_ready;
using test::Pair;
using test::pattern;
using test::types;
// --- handshake

TEST(Handshake, HostCnxnIsChecksummedAndCarriesOurBanner) {
  Session host(host_options());
  EXPECT_EQ(host.state(), SessionState::idle);
  host.start();
  EXPECT_EQ(host.state(), SessionState::handshaking);
  const std::vector<std::uint8_t> out = take_bytes(host);
  const std::vector<Message> messages = decode(out);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].command, kCommandCnxn);
  EXPECT_EQ(messages[0].arg0, kVersion);
  EXPECT_EQ(messages[0].arg1, kMaxPayload);
  EXPECT_EQ(text(messages[0].payload),
            "host::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,"
            "fixed_push_symlink_timestamp,abb_exec,remount_shell,track_app,sendrecv_v2,"
            "sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd");
  EXPECT_EQ(headers(out)[0].data_check, payload_checksum(messages[0].payload));
}

TEST(Handshake, SessionAddsOrRemovesDelayedAckByWindow) {
  SessionOptions with = host_options();
  with.delayed_ack_window = 1 << 20;
  Session a(with);
  a.start();
  EXPECT_TRUE(text(take_output(a)[0].payload).ends_with(",sendrecv_v2_zstd,delayed_ack"));

  SessionOptions without = host_options();
  without.banner.features.push_back("delayed_ack");
  Session b(without);
  b.start();
  EXPECT_EQ(text(take_output(b)[0].payload).find("delayed_ack"), std::string::npos);
}

TEST(Handshake, NoAuthDeviceAnswersCnxnAndBothGoOnline) {
  SessionOptions d = device_options();
  d.max_payload = 256 * 1024;
  Pair pair(host_options(), d);
  pair.host.start();
  const std::vector<std::uint8_t> host_cnxn = take_bytes(pair.host);
  ASSERT_FALSE(pair.device.receive(host_cnxn));
  const std::vector<std::uint8_t> device_cnxn = take_bytes(pair.device);
  const std::vector<Message> reply = decode(device_cnxn);
  ASSERT_EQ(reply.size(), 1u);
  EXPECT_EQ(reply[0].command, kCommandCnxn);
  EXPECT_EQ(reply[0].arg0, kVersion);
  EXPECT_EQ(reply[0].arg1, 256u * 1024);              // the device answers with the negotiated size
  EXPECT_EQ(headers(device_cnxn)[0].data_check, 0u);  // it already knows the host's version
  ASSERT_FALSE(pair.host.receive(device_cnxn));

  EXPECT_EQ(pair.host.state(), SessionState::online);
  EXPECT_EQ(pair.device.state(), SessionState::online);
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::online});
  EXPECT_EQ(types(take_events(pair.device)), std::vector<Event::Type>{Event::Type::online});
  EXPECT_EQ(pair.host.peer_banner().system_type, "device");
  EXPECT_EQ(pair.host.peer_banner().property("ro.product.model"), "Virtual");
  EXPECT_EQ(pair.device.peer_banner().system_type, "host");
  EXPECT_EQ(pair.host.negotiated_version(), kVersion);
  EXPECT_EQ(pair.host.negotiated_max_payload(), 256u * 1024);
  EXPECT_EQ(pair.device.negotiated_max_payload(), 256u * 1024);
  EXPECT_TRUE(pair.host.can_use_feature("shell_v2"));
  EXPECT_FALSE(pair.host.can_use_feature("ls_v2"));  // the device does not list it
  EXPECT_FALSE(pair.host.delayed_ack());
}

TEST(Handshake, AuthSignatureAccepted) {
  SessionOptions d = device_options();
  d.auth_required = true;
  Pair pair(host_options(), d);
  pair.host.start();
  pair.exchange();
  EXPECT_EQ(types(take_events(pair.device)),
            std::vector<Event::Type>{Event::Type::auth_token_needed});
  EXPECT_EQ(pair.device.state(), SessionState::handshaking);
  pair.device.send_auth_token(kToken);
  pair.exchange();

  std::vector<Event> host_events = take_events(pair.host);
  ASSERT_EQ(host_events.size(), 1u);
  EXPECT_EQ(host_events[0].type, Event::Type::auth_token);
  EXPECT_EQ(host_events[0].data, kToken);

  const std::vector<std::uint8_t> signature = pattern(256, 2);
  pair.host.send_auth_signature(signature);
  const std::vector<std::uint8_t> auth = take_bytes(pair.host);
  EXPECT_EQ(headers(auth)[0].data_check, payload_checksum(signature));  // peer version unknown
  ASSERT_FALSE(pair.device.receive(auth));
  std::vector<Event> device_events = take_events(pair.device);
  ASSERT_EQ(device_events.size(), 1u);
  EXPECT_EQ(device_events[0].type, Event::Type::auth_signature);
  EXPECT_EQ(device_events[0].data, signature);
  EXPECT_TRUE(std::ranges::equal(pair.device.auth_token(), kToken));

  pair.device.accept_auth();
  pair.exchange();
  EXPECT_EQ(pair.host.state(), SessionState::online);
  EXPECT_EQ(pair.device.state(), SessionState::online);
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::online});
  EXPECT_EQ(types(take_events(pair.device)), std::vector<Event::Type>{Event::Type::online});
}

TEST(Handshake, RejectedSignatureThenNextKeyThenPublicKeyThenUserAccepts) {
  SessionOptions d = device_options();
  d.auth_required = true;
  Pair pair(host_options(), d);
  pair.host.start();
  pair.exchange();
  take_events(pair.device);
  pair.device.send_auth_token(kToken);
  pair.exchange();
  take_events(pair.host);

  // First key: rejected, the device sends a fresh token.
  pair.host.send_auth_signature(pattern(256, 3));
  pair.exchange();
  take_events(pair.device);
  const std::vector<std::uint8_t> second_token = pattern(kAuthTokenSize, 4);
  pair.device.reject_auth(second_token);
  pair.exchange();
  std::vector<Event> events = take_events(pair.host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::auth_token);
  EXPECT_EQ(events[0].data, second_token);
  EXPECT_TRUE(std::ranges::equal(pair.device.auth_token(), second_token));

  // Second key: rejected too; keys are exhausted, so the host offers its public key.
  pair.host.send_auth_signature(pattern(256, 5));
  pair.exchange();
  take_events(pair.device);
  pair.device.reject_auth(pattern(kAuthTokenSize, 6));
  pair.exchange();
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::auth_token});

  pair.host.send_auth_public_key("QUFBQQ== user@host");
  EXPECT_EQ(pair.host.state(), SessionState::awaiting_user);
  const std::vector<Message> sent = decode(pair.host.pending_output());
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].arg0, kAuthRsaPublicKey);
  EXPECT_EQ(sent[0].payload.back(), 0);  // NUL-terminated on the wire
  pair.exchange();
  events = take_events(pair.device);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::auth_public_key);
  EXPECT_EQ(text(events[0].data), "QUFBQQ== user@host");

  pair.device.accept_auth();
  pair.exchange();
  EXPECT_EQ(pair.host.state(), SessionState::online);
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::online});
}

TEST(Handshake, StlsFromDeviceIsReported) {
  Session host(host_options());
  host.start();
  take_bytes(host);
  ASSERT_FALSE(host.receive(wire(kCommandStls, kStlsVersion, 0)));
  EXPECT_EQ(types(take_events(host)), std::vector<Event::Type>{Event::Type::stls_requested});
  EXPECT_EQ(host.state(), SessionState::handshaking);
}

// Inside TLS the client certificate authenticates: an AUTH from the device is ignored (as
// AOSP's host does once use_tls is set), never answered with a signature.
TEST(Handshake, HostIgnoresAuthAfterStls) {
  Session host(host_options());
  host.start();
  take_bytes(host);
  ASSERT_FALSE(host.receive(wire(kCommandStls, kStlsVersion, 0)));
  take_events(host);
  host.send_stls();
  take_bytes(host);
  EXPECT_TRUE(host.bytes_after_stls().empty());
  ASSERT_FALSE(
      host.receive(wire(kCommandAuth, kAuthToken, 0, std::vector<std::uint8_t>(kAuthTokenSize, 7))))
      << host.error_detail();
  EXPECT_TRUE(take_events(host).empty());
  EXPECT_TRUE(take_bytes(host).empty());
  ASSERT_FALSE(host.receive(wire(kCommandCnxn, kVersion, kMaxPayload, bytes("device::"))));
  EXPECT_EQ(host.state(), SessionState::online);
}

// The TLS records that follow STLS in the same read must reach the TLS layer, not the parser.
TEST(Handshake, StlsHandsOverTheBytesAfterIt) {
  SessionOptions device_side = device_options();
  device_side.tls = true;
  Pair pair(host_options(), device_side);
  pair.host.start();
  pair.exchange();
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::stls_requested});
  EXPECT_EQ(pair.device.state(), SessionState::handshaking);

  pair.host.send_stls();
  EXPECT_TRUE(pair.host.bytes_after_stls().empty());  // the host's TLS client starts here
  std::vector<std::uint8_t> flight = take_bytes(pair.host);
  const std::vector<Message> sent = decode(flight);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].command, kCommandStls);
  EXPECT_EQ(sent[0].arg0, kStlsVersion);
  const std::vector<std::uint8_t> client_hello = {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5};
  flight.insert(flight.end(), client_hello.begin(), client_hello.end());
  ASSERT_FALSE(pair.device.receive(flight)) << pair.device.error_detail();
  EXPECT_EQ(types(take_events(pair.device)), std::vector<Event::Type>{Event::Type::stls_accepted});
  EXPECT_EQ(pair.device.bytes_after_stls(), client_hello);
  EXPECT_TRUE(take_bytes(pair.device).empty());

  pair.device.finish_tls();
  EXPECT_EQ(pair.device.state(), SessionState::online);
  pair.exchange();
  EXPECT_EQ(pair.host.state(), SessionState::online);
  EXPECT_EQ(types(take_events(pair.host)), std::vector<Event::Type>{Event::Type::online});
}

TEST(Handshake, TlsDeviceRefusesAPlainHostAfterStls) {
  SessionOptions device_side = device_options();
  device_side.tls = true;
  Session device(device_side);
  ASSERT_FALSE(device.receive(wire(kCommandCnxn, kVersion, kMaxPayload, bytes("host::"))));
  const std::vector<Message> sent = decode(take_bytes(device));
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].command, kCommandStls);
  EXPECT_EQ(device.receive(wire(kCommandOpen, 1, 0, bytes("shell:id"))), errc::protocol_error);
  EXPECT_NE(device.error_detail().find("in the clear after this device asked for TLS"),
            std::string::npos)
      << device.error_detail();
}

TEST(Handshake, PlainDeviceStillRefusesStls) {
  Session device(device_options());
  ASSERT_FALSE(device.receive(wire(kCommandCnxn, kVersion, kMaxPayload, bytes("host::"))));
  EXPECT_EQ(device.receive(wire(kCommandStls, kStlsVersion, 0)), errc::protocol_error);
  EXPECT_EQ(device.error_detail(), "host sent STLS; this device does not offer TLS");
}

TEST(Handshake, OldDeviceNegotiatesChecksumsAndSmallPayload) {
  Session host(host_options());
  host.start();
  take_bytes(host);
  ASSERT_FALSE(host.receive(
      wire(kCommandCnxn, kVersionMin, kMaxPayloadV1, bytes("device::features=shell_v2"), true)));
  EXPECT_EQ(host.state(), SessionState::online);
  EXPECT_EQ(host.negotiated_version(), kVersionMin);
  EXPECT_EQ(host.negotiated_max_payload(), kMaxPayloadV1);

  std::error_code error;
  const std::uint32_t id = host.open_stream("shell:ls", error);
  ASSERT_FALSE(error);
  const std::vector<std::uint8_t> open = take_bytes(host);
  EXPECT_EQ(headers(open)[0].data_check,
            payload_checksum(bytes(std::string_view("shell:ls\0", 9))));

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 3, id, {}, true)));
  std::vector<std::uint8_t> bad = wire(kCommandWrte, 3, id, bytes("data"), true);
  bad[16] ^= 1;
  EXPECT_EQ(host.receive(bad), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("checksum mismatch"), std::string::npos);
}

TEST(Handshake, NewDeviceGetsNoChecksums) {
  Session host = online_host();
  std::error_code error;
  host.open_stream("shell:ls", error);
  ASSERT_FALSE(error);
  EXPECT_EQ(headers(take_bytes(host))[0].data_check, 0u);
}

TEST(Handshake, OldHostGetsChecksumsFromDevice) {
  Session device(device_options());
  ASSERT_FALSE(
      device.receive(wire(kCommandCnxn, kVersionMin, kMaxPayloadV1, bytes("host::"), true)));
  const std::vector<std::uint8_t> reply = take_bytes(device);
  const std::vector<Message> messages = decode(reply);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].arg1, kMaxPayloadV1);
  EXPECT_EQ(headers(reply)[0].data_check, payload_checksum(messages[0].payload));
}

TEST(Handshake, InboundBeforeCnxnAcceptsUpToOneMebibyte) {
  SessionOptions options = host_options();
  options.max_payload = kMaxPayloadV1;
  Session host(options);
  host.start();
  take_bytes(host);
  std::vector<std::uint8_t> banner = bytes("device::");
  banner.resize(8192, ' ');
  EXPECT_FALSE(host.receive(wire(kCommandCnxn, kVersion, kMaxPayload, banner)))
      << host.error_detail();
  EXPECT_EQ(host.negotiated_max_payload(), kMaxPayloadV1);
}

// --- streams

class StreamMux : public ::testing::TestWithParam<std::uint32_t> {};

// 200 concurrent streams, data both ways, chunked by a small max payload, closed by the host
// once it has everything; the device side checks what it got when the close arrives.
TEST_P(StreamMux, TwoHundredConcurrentStreamsBothWays) {
  constexpr std::uint32_t kStreams = 200;
  SessionOptions h = host_options();
  h.max_payload = 4096;
  h.delayed_ack_window = GetParam();
  SessionOptions d = device_options();
  d.delayed_ack_window = GetParam();
  Pair pair(h, d);
  pair.host.start();
  pair.exchange();
  ASSERT_EQ(pair.host.state(), SessionState::online);
  ASSERT_EQ(pair.host.delayed_ack(), GetParam() != 0);
  take_events(pair.host);
  take_events(pair.device);

  const auto upload = [](std::uint32_t i) { return pattern(1 + (i * 997) % 13000, i); };
  const auto download = [](std::uint32_t i) { return pattern(1 + (i * 1499) % 17000, i + 1000); };

  std::map<std::uint32_t, std::uint32_t> host_index;    // host stream id → i
  std::map<std::uint32_t, std::uint32_t> device_index;  // device stream id → i
  std::map<std::uint32_t, std::vector<std::uint8_t>> host_got, device_got;
  std::size_t host_closed = 0, device_closed = 0;

  for (std::uint32_t i = 0; i < kStreams; ++i) {
    std::error_code error;
    const std::uint32_t id = pair.host.open_stream("echo:" + std::to_string(i), error);
    ASSERT_FALSE(error);
    host_index[id] = i;
  }
  EXPECT_EQ(pair.host.open_streams(), kStreams);

  for (int round = 0; round < 100000; ++round) {
    bool progress = false;
    const std::vector<std::uint8_t> hb = take_bytes(pair.host);
    const std::vector<std::uint8_t> db = take_bytes(pair.device);
    if (!hb.empty()) {
      ASSERT_FALSE(pair.device.receive(hb)) << pair.device.error_detail();
    }
    if (!db.empty()) {
      ASSERT_FALSE(pair.host.receive(db)) << pair.host.error_detail();
    }
    progress = !hb.empty() || !db.empty();

    Event e;
    while (pair.device.next_event(e)) {
      progress = true;
      switch (e.type) {
        case Event::Type::open_requested: {
          const std::uint32_t i = static_cast<std::uint32_t>(std::stoul(e.service.substr(5)));
          device_index[e.stream] = i;
          pair.device.accept_open(e.stream);
          ASSERT_FALSE(pair.device.write(e.stream, download(i)));
          break;
        }
        case Event::Type::stream_data:
          device_got[e.stream].insert(device_got[e.stream].end(), e.data.begin(), e.data.end());
          pair.device.acknowledge(e.stream, e.data.size());
          break;
        case Event::Type::stream_closed:
          EXPECT_FALSE(e.refused);
          EXPECT_EQ(device_got[e.stream], upload(device_index[e.stream])) << "stream " << e.stream;
          ++device_closed;
          break;
        case Event::Type::stream_writable:
          break;
        default:
          ADD_FAILURE() << "unexpected device event " << static_cast<int>(e.type);
      }
    }
    while (pair.host.next_event(e)) {
      progress = true;
      const std::uint32_t i = host_index.at(e.stream);
      switch (e.type) {
        case Event::Type::stream_ready:
          ASSERT_FALSE(pair.host.write(e.stream, upload(i)));
          break;
        case Event::Type::stream_data:
          host_got[e.stream].insert(host_got[e.stream].end(), e.data.begin(), e.data.end());
          pair.host.acknowledge(e.stream, e.data.size());
          if (host_got[e.stream].size() == download(i).size()) pair.host.close_stream(e.stream);
          break;
        case Event::Type::stream_closed:
          EXPECT_FALSE(e.refused);
          ++host_closed;
          break;
        case Event::Type::stream_writable:
          break;
        default:
          ADD_FAILURE() << "unexpected host event " << static_cast<int>(e.type);
      }
    }
    if (!progress) break;
  }
  EXPECT_EQ(host_closed, kStreams);
  EXPECT_EQ(device_closed, kStreams);
  for (const auto& [id, i] : host_index) EXPECT_EQ(host_got[id], download(i)) << "stream " << id;
  EXPECT_EQ(pair.host.open_streams(), 0u);
  EXPECT_EQ(pair.device.open_streams(), 0u);
}

INSTANTIATE_TEST_SUITE_P(ClassicAndDelayedAck, StreamMux, ::testing::Values(0u, 8192u),
                         [](const auto& info) { return info.param ? "delayed_ack" : "classic"; });

}  // namespace
}  // namespace adbwire::protocol
