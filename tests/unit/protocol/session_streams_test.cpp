// Session streams: flow control (classic and delayed_ack), opening and closing, and hostile peers
// breaking the stream rules — each a protocol_error naming what the peer did.
#include <gtest/gtest.h>

#include <map>

#include "adbwire/error.hpp"
#include "adbwire/protocol/session.hpp"
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

TEST(FlowControl, ClassicKeepsOneWrteInFlight) {
  Session host = online_host(4096);
  const std::uint32_t id = open_ready(host, 77);
  const std::vector<std::uint8_t> data = pattern(10000, 9);
  ASSERT_FALSE(host.write(id, data));
  std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandWrte);
  EXPECT_EQ(out[0].arg0, id);
  EXPECT_EQ(out[0].arg1, 77u);
  EXPECT_EQ(out[0].payload.size(), 4096u);
  EXPECT_EQ(host.queued(id), 10000u - 4096);

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 77, id)));
  out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload.size(), 4096u);
  EXPECT_TRUE(take_events(host).empty());

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 77, id)));
  out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload.size(), 10000u - 2 * 4096);
  EXPECT_EQ(host.queued(id), 0u);
  EXPECT_TRUE(take_events(host).empty());  // the last WRTE is not acknowledged yet

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 77, id)));
  const std::vector<Event> events = take_events(host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::stream_writable);
  EXPECT_EQ(events[0].stream, id);
  EXPECT_TRUE(take_output(host).empty());
}

TEST(FlowControl, ClassicReceiveOkaysOnceTheWholeWrteIsConsumed) {
  Session host = online_host(4096);
  const std::uint32_t id = open_ready(host, 77);
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 77, id, pattern(1000, 1))));
  const std::vector<Event> events = take_events(host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::stream_data);
  EXPECT_EQ(events[0].data, pattern(1000, 1));
  host.acknowledge(id, 600);
  EXPECT_TRUE(take_output(host).empty());
  host.acknowledge(id, 400);
  const std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandOkay);
  EXPECT_EQ(out[0].arg0, id);
  EXPECT_EQ(out[0].arg1, 77u);
  EXPECT_TRUE(out[0].payload.empty());
  EXPECT_FALSE(host.receive(wire(kCommandWrte, 77, id, pattern(10, 1))));
}

TEST(FlowControl, ClassicSecondWrteWithoutCreditIsAProtocolError) {
  Session host = online_host(4096);
  const std::uint32_t id = open_ready(host, 77);
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 77, id, pattern(10, 1))));
  EXPECT_EQ(host.receive(wire(kCommandWrte, 77, id, pattern(10, 2))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("without credit"), std::string::npos) << host.error_detail();
}

TEST(FlowControl, DelayedAckSendsWithinTheGrantedCredit) {
  Session host = online_host(4096, 65536, "device::features=shell_v2,delayed_ack");
  ASSERT_TRUE(host.delayed_ack());
  std::error_code error;
  const std::uint32_t id = host.open_stream("sync:", error);
  const std::vector<Message> open = take_output(host);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].command, kCommandOpen);
  EXPECT_EQ(open[0].arg1, 65536u);  // our receive window
  EXPECT_EQ(text(open[0].payload), std::string("sync:\0", 6));

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 9, id, le32(10000))));
  EXPECT_EQ(types(take_events(host)), std::vector<Event::Type>{Event::Type::stream_ready});
  ASSERT_FALSE(host.write(id, pattern(25000, 3)));
  std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 3u);  // several WRTEs in flight at once
  EXPECT_EQ(out[0].payload.size(), 4096u);
  EXPECT_EQ(out[1].payload.size(), 4096u);
  EXPECT_EQ(out[2].payload.size(), 10000u - 2 * 4096);
  EXPECT_EQ(host.queued(id), 15000u);

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 9, id, le32(5000))));
  out = take_output(host);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].payload.size(), 4096u);
  EXPECT_EQ(out[1].payload.size(), 5000u - 4096);
  EXPECT_TRUE(take_events(host).empty());

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 9, id, le32(20000))));
  out = take_output(host);
  std::size_t sent = 0;
  for (const Message& m : out) sent += m.payload.size();
  EXPECT_EQ(sent, 10000u);
  EXPECT_EQ(types(take_events(host)), std::vector<Event::Type>{Event::Type::stream_writable});
}

TEST(FlowControl, DelayedAckFirstOkayMustCarryTheWindow) {
  Session host = online_host(4096, 65536, "device::features=delayed_ack");
  std::error_code error;
  const std::uint32_t id = host.open_stream("sync:", error);
  EXPECT_EQ(host.receive(wire(kCommandOkay, 9, id)), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("initial window"), std::string::npos);
}

TEST(FlowControl, OkayPayloadMustBeEmptyOrFourBytes) {
  Session host = online_host(4096, 65536, "device::features=delayed_ack");
  const std::uint32_t id = open_ready(host, 9, le32(100));
  EXPECT_EQ(host.receive(wire(kCommandOkay, 9, id, bytes("abc"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("3 payload bytes"), std::string::npos) << host.error_detail();
}

TEST(FlowControl, DelayedAckBatchesCreditsAndReportsWhenIdle) {
  Session host = online_host(4096, 8192, "device::features=delayed_ack");
  const std::uint32_t id = open_ready(host, 9, le32(100));
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 9, id, pattern(3000, 1))));
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 9, id, pattern(3000, 2))));
  EXPECT_EQ(take_events(host).size(), 2u);

  host.acknowledge(id, 1000);  // 1000 < half the window, 5000 still unconsumed: hold it
  EXPECT_TRUE(take_output(host).empty());
  host.acknowledge(id, 3500);  // 4500 >= 4096: report
  std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandOkay);
  EXPECT_EQ(out[0].payload, le32(4500));
  host.acknowledge(id, 1500);  // everything consumed: report the rest at once
  out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, le32(1500));
}

TEST(FlowControl, DelayedAckWrteBeyondTheWindowIsAProtocolError) {
  Session host = online_host(4096, 8192, "device::features=delayed_ack");
  const std::uint32_t id = open_ready(host, 9, le32(100));
  // As in AOSP, a sender with any credit left may send a full message: 3000 + 4096 + 4096.
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 9, id, pattern(3000, 1))));
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 9, id, pattern(4096, 1))));
  ASSERT_FALSE(host.receive(wire(kCommandWrte, 9, id, pattern(4096, 1))));
  EXPECT_EQ(host.receive(wire(kCommandWrte, 9, id, pattern(1, 1))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("beyond the delayed_ack window"), std::string::npos);
}

TEST(Streams, CloseFlushesQueuedDataFirst) {
  Session host = online_host(4096);
  const std::uint32_t id = open_ready(host, 77);
  ASSERT_FALSE(host.write(id, pattern(6000, 1)));
  host.close_stream(id);
  std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandWrte);
  EXPECT_TRUE(take_events(host).empty());
  EXPECT_EQ(host.write(id, pattern(1, 1)), errc::not_found);

  ASSERT_FALSE(host.receive(wire(kCommandOkay, 77, id)));
  out = take_output(host);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].command, kCommandWrte);
  EXPECT_EQ(out[0].payload.size(), 6000u - 4096);
  EXPECT_EQ(out[1].command, kCommandClse);
  EXPECT_EQ(out[1].arg0, id);
  EXPECT_EQ(out[1].arg1, 77u);
  const std::vector<Event> events = take_events(host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::stream_closed);
  EXPECT_FALSE(events[0].refused);
  EXPECT_EQ(host.open_streams(), 0u);

  // The peer's messages that crossed our CLSE are ignored silently.
  EXPECT_FALSE(host.receive(wire(kCommandOkay, 77, id)));
  EXPECT_FALSE(host.receive(wire(kCommandWrte, 77, id, bytes("late"))));
  EXPECT_FALSE(host.receive(wire(kCommandClse, 77, id)));
  EXPECT_TRUE(take_events(host).empty());
  EXPECT_TRUE(take_output(host).empty());
  EXPECT_EQ(host.state(), SessionState::online);
}

TEST(Streams, PeerCloseEndsTheStream) {
  Session host = online_host();
  const std::uint32_t id = open_ready(host, 77);
  ASSERT_FALSE(host.receive(wire(kCommandClse, 77, id)));
  const std::vector<Event> events = take_events(host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::stream_closed);
  EXPECT_EQ(events[0].stream, id);
  EXPECT_FALSE(events[0].refused);
  EXPECT_EQ(host.open_streams(), 0u);
  EXPECT_TRUE(take_output(host).empty());  // no CLSE echo, as AOSP
}

TEST(Streams, RefusedOpen) {
  Pair pair(host_options(), device_options());
  pair.host.start();
  pair.exchange();
  take_events(pair.host);
  take_events(pair.device);
  std::error_code error;
  const std::uint32_t id = pair.host.open_stream("nosuch:service", error);
  ASSERT_EQ(id, 1u);
  pair.exchange();
  const std::vector<Event> requested = take_events(pair.device);
  ASSERT_EQ(requested.size(), 1u);
  EXPECT_EQ(requested[0].type, Event::Type::open_requested);
  EXPECT_EQ(requested[0].service, "nosuch:service");  // the NUL terminator is stripped
  pair.device.refuse_open(requested[0].stream);
  pair.exchange();
  const std::vector<Event> events = take_events(pair.host);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, Event::Type::stream_closed);
  EXPECT_EQ(events[0].stream, id);
  EXPECT_TRUE(events[0].refused);
  EXPECT_EQ(pair.device.open_streams(), 0u);
}

TEST(Streams, HostRefusesDeviceInitiatedOpen) {
  Session host = online_host();
  ASSERT_FALSE(host.receive(wire(kCommandOpen, 5, 0, bytes(std::string_view("tcp:80\0", 7)))));
  const std::vector<Message> out = take_output(host);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandClse);
  EXPECT_EQ(out[0].arg0, 0u);
  EXPECT_EQ(out[0].arg1, 5u);
  EXPECT_TRUE(take_events(host).empty());
  EXPECT_EQ(host.state(), SessionState::online);
}

TEST(Streams, DeviceAcceptsWithWindowWhenDelayedAck) {
  Session device = online_device(65536, 4096, "host::features=delayed_ack");
  ASSERT_TRUE(device.delayed_ack());
  ASSERT_FALSE(device.receive(wire(kCommandOpen, 12, 1 << 20, bytes("shell:ls"))));
  const std::vector<Event> events = take_events(device);
  ASSERT_EQ(events.size(), 1u);
  device.accept_open(events[0].stream);
  const std::vector<Message> out = take_output(device);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandOkay);
  EXPECT_EQ(out[0].arg0, events[0].stream);
  EXPECT_EQ(out[0].arg1, 12u);
  EXPECT_EQ(out[0].payload, le32(65536));

  // Without a window in OPEN the negotiated delayed_ack cannot work: refused.
  ASSERT_FALSE(device.receive(wire(kCommandOpen, 13, 0, bytes("shell:ls"))));
  const std::vector<Message> refusal = take_output(device);
  ASSERT_EQ(refusal.size(), 1u);
  EXPECT_EQ(refusal[0].command, kCommandClse);
  EXPECT_EQ(refusal[0].arg0, 0u);
  EXPECT_EQ(refusal[0].arg1, 13u);
}

TEST(Streams, DeviceRefusesBeyondMaxStreams) {
  Session device = online_device(0, 2);
  for (std::uint32_t remote = 1; remote <= 3; ++remote) {
    ASSERT_FALSE(device.receive(wire(kCommandOpen, remote, 0, bytes("shell:"))));
  }
  EXPECT_EQ(take_events(device).size(), 2u);
  const std::vector<Message> out = take_output(device);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].command, kCommandClse);
  EXPECT_EQ(out[0].arg1, 3u);
  std::error_code error;
  EXPECT_EQ(device.open_stream("tcp:80", error), 0u);
  EXPECT_EQ(error, errc::busy);
}

TEST(Streams, OpenStreamErrors) {
  Session idle(host_options());
  std::error_code error;
  EXPECT_EQ(idle.open_stream("shell:", error), 0u);
  EXPECT_EQ(error, errc::closed);
  Session host = online_host();
  EXPECT_EQ(host.open_stream("", error), 0u);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_EQ(host.open_stream("shell:", error), 1u);
  EXPECT_FALSE(error);
  EXPECT_EQ(host.open_stream("shell:", error), 2u);  // ids are never reused
  EXPECT_EQ(host.write(99, bytes("x")), errc::not_found);
}

// --- hostile peers

struct Hostile {
  const char* name;
  std::vector<std::uint8_t> bytes;
  const char* detail;
};

std::vector<std::uint8_t> concat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Hostile, EveryCaseIsAProtocolErrorNamingIt) {
  std::vector<std::uint8_t> bad_magic = wire(kCommandOkay, 1, 1);
  bad_magic[23] = 0;
  std::vector<std::uint8_t> oversize = wire(kCommandWrte, 1, 1, std::vector<std::uint8_t>(4097, 1));
  const Hostile cases[] = {
      {"bad magic", bad_magic, "bad magic"},
      {"oversize length", oversize, "oversize length"},
      {"unknown command", wire(0x4b4e554a, 1, 1), "unknown command"},
      {"okay before open", wire(kCommandOkay, 1, 1), "OKAY for stream 1 before any OPEN"},
      {"wrte before open", wire(kCommandWrte, 1, 1, bytes("x")),
       "WRTE for stream 1 before any OPEN"},
      {"garbage after valid packet",
       concat(wire(kCommandOpen, 5, 0, bytes("x")), std::vector<std::uint8_t>(24, 0x41)),
       "unknown command 0x41414141"},
      {"obsolete sync", wire(kCommandSync, 1, 1), "SYNC"},
  };
  for (const Hostile& c : cases) {
    SCOPED_TRACE(c.name);
    Session host = online_host();
    EXPECT_EQ(host.receive(c.bytes), errc::protocol_error);
    EXPECT_EQ(host.state(), SessionState::failed);
    EXPECT_EQ(host.error(), errc::protocol_error);
    EXPECT_NE(host.error_detail().find(c.detail), std::string::npos) << host.error_detail();
    take_events(host);
    take_bytes(host);
    const std::string detail = host.error_detail();
    EXPECT_EQ(host.receive(wire(kCommandOkay, 1, 1)), errc::protocol_error);
    EXPECT_EQ(host.error_detail(), detail);
    EXPECT_TRUE(take_events(host).empty());
    EXPECT_TRUE(host.pending_output().empty());
  }
}

TEST(Hostile, WrteForStreamNeverOpened) {
  Session host = online_host();
  const std::uint32_t id = open_ready(host, 77);
  EXPECT_EQ(host.receive(wire(kCommandWrte, 77, id + 4, bytes("x"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("WRTE for stream 5, which was never opened"),
            std::string::npos)
      << host.error_detail();
}

TEST(Hostile, WrteFromTheWrongPeerId) {
  Session host = online_host();
  const std::uint32_t id = open_ready(host, 77);
  EXPECT_EQ(host.receive(wire(kCommandWrte, 78, id, bytes("x"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("peer id 78"), std::string::npos) << host.error_detail();
}

TEST(Hostile, WrteBeforeOurOpenWasAccepted) {
  Session host = online_host();
  std::error_code error;
  const std::uint32_t id = host.open_stream("shell:", error);
  EXPECT_EQ(host.receive(wire(kCommandWrte, 77, id, bytes("x"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("before the peer accepted"), std::string::npos);
}

TEST(Hostile, StreamMessagesBeforeOnline) {
  Session host(host_options());
  host.start();
  EXPECT_EQ(host.receive(wire(kCommandOpen, 1, 0, bytes("x"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("OPEN received before the connection came online"),
            std::string::npos);
}

TEST(Hostile, BadAuthTokenSize) {
  Session host(host_options());
  host.start();
  EXPECT_EQ(host.receive(wire(kCommandAuth, kAuthToken, 0, pattern(21, 1))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("AUTH TOKEN of 21 bytes"), std::string::npos);
}

TEST(Hostile, SecondCnxnWhileOnline) {
  Session host = online_host();
  EXPECT_EQ(host.receive(wire(kCommandCnxn, kVersion, 4096, bytes("device::"))),
            errc::protocol_error);
  EXPECT_NE(host.error_detail().find("already online"), std::string::npos);
}

TEST(Hostile, TinyMaxPayloadInCnxn) {
  Session host(host_options());
  host.start();
  EXPECT_EQ(host.receive(wire(kCommandCnxn, kVersion, 1, bytes("device::"))), errc::protocol_error);
  EXPECT_NE(host.error_detail().find("max payload of 1 bytes"), std::string::npos);
}

TEST(Hostile, DeviceGetsSignatureBeforeAnyToken) {
  SessionOptions d = device_options();
  d.auth_required = true;
  Session device(d);
  ASSERT_FALSE(device.receive(wire(kCommandCnxn, kVersion, kMaxPayload, bytes("host::"))));
  EXPECT_EQ(device.receive(wire(kCommandAuth, kAuthSignature, 0, pattern(256, 1))),
            errc::protocol_error);
  EXPECT_NE(device.error_detail().find("before any TOKEN"), std::string::npos);
}

}  // namespace
}  // namespace adbwire::protocol
