// CaptureDecoder end to end on hand-made captures: every supported link type, TCP
// reassembly (out of order, retransmitted, mid-stream start), USB URBs, adb server traffic.
#include <gtest/gtest.h>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/constants.hpp"
#include "unit/capture/capture_test_support.hpp"

namespace adbwire::capture_test {
namespace {

using namespace adbwire::protocol;

constexpr std::uint8_t kSyn = 0x02;
constexpr std::uint8_t kSynAck = 0x12;

// A short host/device conversation as two byte streams.
struct Conversation {
  Bytes host = [] {
    Bytes b = adb_message(kCommandCnxn, kVersion, 262144, "host::features=shell_v2");
    const Bytes open = adb_message(kCommandOpen, 7, 0, std::string("shell:echo hi") + '\0');
    b.insert(b.end(), open.begin(), open.end());
    return b;
  }();
  Bytes device = [] {
    Bytes b = adb_message(kCommandCnxn, kVersion, 262144, "device::ro.product.name=x");
    for (const Bytes& m :
         {adb_message(kCommandOkay, 9, 7, ""), adb_message(kCommandWrte, 9, 7, "hi\n"),
          adb_message(kCommandClse, 9, 7, "")}) {
      b.insert(b.end(), m.begin(), m.end());
    }
    return b;
  }();
};

const std::vector<std::string> kExpected = {
    "CNXN 01000001 00040000 23", "OPEN 00000007 00000000 14", "CNXN 01000001 00040000 25",
    "OKAY 00000009 00000007 0",  "WRTE 00000009 00000007 3",  "CLSE 00000009 00000007 0",
};

// Frames: handshake, the host stream in two segments, then the device stream in three.
std::vector<Bytes> conversation_frames(const Conversation& c, bool ipv6 = false) {
  std::vector<Bytes> frames;
  const auto host_frame = [&](std::uint32_t seq, std::uint8_t flags, Bytes payload) {
    return ip_tcp({1, 2, 40000, 5555, seq, flags, std::move(payload), ipv6});
  };
  const auto device_frame = [&](std::uint32_t seq, std::uint8_t flags, Bytes payload) {
    return ip_tcp({2, 1, 5555, 40000, seq, flags, std::move(payload), ipv6});
  };
  const std::uint32_t h = 0xfffffff0;  // host ISN near the wrap, so sequence numbers wrap
  const std::uint32_t d = 1000;
  frames.push_back(host_frame(h, kSyn, {}));
  frames.push_back(device_frame(d, kSynAck, {}));
  frames.push_back(host_frame(h + 1, 0x10, {}));
  frames.push_back(host_frame(h + 1, 0x18, Bytes(c.host.begin(), c.host.begin() + 30)));
  frames.push_back(host_frame(h + 31, 0x18, Bytes(c.host.begin() + 30, c.host.end())));
  frames.push_back(device_frame(d + 1, 0x18, Bytes(c.device.begin(), c.device.begin() + 10)));
  frames.push_back(device_frame(d + 11, 0x18, Bytes(c.device.begin() + 10, c.device.begin() + 60)));
  frames.push_back(device_frame(d + 61, 0x18, Bytes(c.device.begin() + 60, c.device.end())));
  return frames;
}

std::vector<Packet> as_packets(const std::vector<Bytes>& frames, const Bytes& link_header = {}) {
  std::vector<Packet> packets;
  std::uint64_t t = 1'700'000'000'000'000'000;
  for (const Bytes& f : frames) {
    Bytes data = link_header;
    data.insert(data.end(), f.begin(), f.end());
    packets.push_back({0, t += 1000, data});
  }
  return packets;
}

TEST(CaptureDecoder, EveryIpLinkTypeGivesTheSameMessages) {
  const Conversation c;
  struct Link {
    std::uint32_t type;
    Bytes header;
    bool ipv6;
  };
  const Bytes ethernet = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
  const Bytes ethernet_vlan = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0, 5, 0x86, 0xdd};
  const Bytes sll = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00};
  const Bytes sll2 = {0x86, 0xdd, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0};
  const Bytes null_le = {2, 0, 0, 0};
  const Bytes null_be_v6 = {0, 0, 0, 30};
  const std::vector<Link> links = {
      {1, ethernet, false}, {1, ethernet_vlan, true}, {113, sll, false},          {276, sll2, true},
      {0, null_le, false},  {0, null_be_v6, true},    {101, {}, false},           {101, {}, true},
      {228, {}, false},     {229, {}, true},          {108, {0, 0, 0, 2}, false},
  };
  for (const Link& link : links) {
    const Bytes file =
        pcap_file(link.type, as_packets(conversation_frames(c, link.ipv6), link.header));
    const Decoded d = decode(file);
    ASSERT_FALSE(d.ec) << "link " << link.type << ": " << d.fault.detail;
    EXPECT_EQ(adb_lines(d.messages), kExpected) << "link type " << link.type;
    ASSERT_EQ(d.connections.size(), 1u);
    EXPECT_FALSE(d.connections[0].smart_socket);
  }
}

TEST(CaptureDecoder, ResultDoesNotDependOnHowTheFileIsSplit) {
  const Conversation c;
  const Bytes file = pcapng_file(
      {{1, 9}}, as_packets(conversation_frames(c), {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0}));
  for (std::size_t chunk = 1; chunk <= file.size(); chunk += (chunk < 64 ? 1 : 61)) {
    const Decoded d = decode(file, chunk);
    ASSERT_FALSE(d.ec) << d.fault.detail;
    EXPECT_EQ(adb_lines(d.messages), kExpected) << "chunk " << chunk;
  }
}

TEST(CaptureDecoder, DirectionsServicesRecordsAndTimes) {
  const Conversation c;
  const auto packets = as_packets(conversation_frames(c), {});
  const Decoded d = decode(pcap_file(101, packets, false, true));
  ASSERT_EQ(d.messages.size(), 6u);
  EXPECT_EQ(d.messages[0].direction, CaptureDirection::host_to_device);
  EXPECT_EQ(d.messages[0].record, 5u);  // the CNXN completes in the second host segment
  EXPECT_EQ(d.messages[0].time.time_since_epoch().count(),
            static_cast<std::int64_t>(packets[4].time_ns));
  EXPECT_EQ(d.messages[2].direction, CaptureDirection::device_to_host);
  EXPECT_EQ(d.messages[1].service, "shell:echo hi");
  EXPECT_EQ(d.messages[4].service, "shell:echo hi");
  EXPECT_EQ(d.messages[4].summary, "\"hi\\n\"");
  EXPECT_EQ(d.connections[0].description, "tcp 10.0.0.1:40000 > 10.0.0.2:5555");
}

TEST(CaptureDecoder, OutOfOrderRetransmittedAndOverlappingSegments) {
  const Conversation c;
  auto frames = conversation_frames(c);
  // Device segments arrive 3, 1, 1 again, then 2 overlapping 1; host segment 2 is duplicated.
  const Bytes d1 = frames[5];
  const Bytes d2 = frames[6];
  const Bytes d3 = frames[7];
  Bytes overlapping = ip_tcp(
      {2, 1, 5555, 40000, 1001 + 5, 0x18, Bytes(c.device.begin() + 5, c.device.begin() + 60)});
  frames.resize(5);
  frames.push_back(frames[4]);
  frames.insert(frames.end(), {d3, d1, d1, overlapping});
  const Decoded d = decode(pcap_file(101, as_packets(frames)));
  ASSERT_FALSE(d.ec);
  EXPECT_EQ(adb_lines(d.messages), kExpected);
  EXPECT_EQ(d.stats.resyncs, 0u);
}

TEST(CaptureDecoder, CaptureStartingMidStreamResyncsOnTheNextHeader) {
  const Conversation c;
  // No handshake; the device stream starts 5 bytes into its CNXN, inside the header.
  std::vector<Bytes> frames = {
      ip_tcp({2, 1, 5555, 40000, 5000, 0x18, Bytes(c.device.begin() + 5, c.device.end())}),
  };
  const Decoded d = decode(pcap_file(101, as_packets(frames)));
  ASSERT_FALSE(d.ec);
  const std::vector<std::string> expected = {kExpected.begin() + 3, kExpected.end()};
  EXPECT_EQ(adb_lines(d.messages), expected);
  EXPECT_EQ(d.messages[0].direction, CaptureDirection::device_to_host);  // 5555 is the device
  EXPECT_EQ(d.stats.resyncs, 1u);
  const std::size_t device_cnxn =
      kHeaderSize + std::string_view("device::ro.product.name=x").size();
  EXPECT_EQ(d.stats.skipped_bytes, device_cnxn - 5);
}

TEST(CaptureDecoder, LostSegmentResyncsAfterTheGap) {
  const Conversation c;
  auto frames = conversation_frames(c);
  frames.erase(frames.begin() + 6);  // device bytes 10..60 never captured
  const Decoded d = decode(pcap_file(101, as_packets(frames)));
  ASSERT_FALSE(d.ec);
  // Bytes 60.. start inside the OKAY (49..73); the WRTE and CLSE after it survive.
  const std::vector<std::string> expected = {kExpected[0], kExpected[1], kExpected[4],
                                             kExpected[5]};
  EXPECT_EQ(adb_lines(d.messages), expected);
  EXPECT_EQ(d.stats.lost_bytes, 50u);
}

TEST(CaptureDecoder, UsbmonHeaderAndPayloadInSeparateUrbs) {
  const Bytes cnxn = adb_message(kCommandCnxn, kVersion, 4096, "host::");
  const Bytes reply = adb_message(kCommandCnxn, kVersion, 4096, "device::");
  for (const bool mmapped : {false, true}) {
    const std::span<const std::uint8_t> c(cnxn);
    const std::span<const std::uint8_t> r(reply);
    const std::vector<Bytes> urbs = {
        usbmon('S', 0x81, 5, {}, mmapped),             // IN submitted, no data yet
        usbmon('S', 0x01, 5, c.first(24), mmapped),    // OUT header
        usbmon('C', 0x01, 5, {}, mmapped),             // OUT completion: no data
        usbmon('S', 0x01, 5, c.subspan(24), mmapped),  // OUT payload
        usbmon('C', 0x81, 5, r.first(24), mmapped),    // IN header
        usbmon('S', 0x81, 5, {}, mmapped),
        usbmon('C', 0x81, 5, r.subspan(24), mmapped),  // IN payload
    };
    const Decoded d = decode(pcap_file(mmapped ? 220 : 189, as_packets(urbs)));
    ASSERT_FALSE(d.ec);
    const std::vector<std::string> expected = {"CNXN 01000001 00001000 6",
                                               "CNXN 01000001 00001000 8"};
    EXPECT_EQ(adb_lines(d.messages), expected);
    EXPECT_EQ(d.messages[0].direction, CaptureDirection::host_to_device);
    EXPECT_EQ(d.messages[1].direction, CaptureDirection::device_to_host);
    EXPECT_EQ(d.connections.at(0).description, "usb bus 1 device 5");
  }
}

TEST(CaptureDecoder, UsbPcapUsesSubmittedOutAndCompletedIn) {
  const Bytes open = adb_message(kCommandOpen, 1, 0, "shell:");
  const Bytes okay = adb_message(kCommandOkay, 2, 1, "");
  const std::span<const std::uint8_t> o(open);
  const std::vector<Bytes> urbs = {
      usbpcap(false, 0x02, 3, o.first(24)),
      usbpcap(true, 0x02, 3, o.first(24)),  // completion echo ignored
      usbpcap(false, 0x02, 3, o.subspan(24)),
      usbpcap(false, 0x82, 3, okay),  // IN submit ignored
      usbpcap(true, 0x82, 3, okay),
  };
  const Decoded d = decode(pcapng_file({{249, -1}}, as_packets(urbs)));
  ASSERT_FALSE(d.ec);
  const std::vector<std::string> expected = {"OPEN 00000001 00000000 6",
                                             "OKAY 00000002 00000001 0"};
  EXPECT_EQ(adb_lines(d.messages), expected);
}

TEST(CaptureDecoder, AdbServerTrafficDecodesAsRequestsAndReplies) {
  Bytes client = bytes_of("000chost:version0012host:transport:abc0005sync:");
  Bytes sync_request = bytes_of("STAT");
  sync_request.insert(sync_request.end(), {4, 0, 0, 0});
  const Bytes path = bytes_of("/abc");
  sync_request.insert(sync_request.end(), path.begin(), path.end());
  client.insert(client.end(), sync_request.begin(), sync_request.end());
  Bytes server = bytes_of("OKAY00040029OKAYOKAY");
  Bytes stat = bytes_of("STAT");
  for (std::uint32_t v : {0100644u, 12u, 3u}) {
    for (int s = 0; s < 32; s += 8) stat.push_back(static_cast<std::uint8_t>(v >> s));
  }
  server.insert(server.end(), stat.begin(), stat.end());
  const std::vector<Bytes> frames = {
      ip_tcp({1, 2, 41000, 5037, 1, 0x18, Bytes(client.begin(), client.begin() + 16)}),
      ip_tcp({2, 1, 5037, 41000, 1, 0x18, Bytes(server.begin(), server.begin() + 12)}),
      ip_tcp({1, 2, 41000, 5037, 17, 0x18, Bytes(client.begin() + 16, client.begin() + 47)}),
      ip_tcp({2, 1, 5037, 41000, 13, 0x18, Bytes(server.begin() + 12, server.begin() + 20)}),
      ip_tcp({1, 2, 41000, 5037, 48, 0x18, Bytes(client.begin() + 47, client.end())}),
      ip_tcp({2, 1, 5037, 41000, 21, 0x18, Bytes(server.begin() + 20, server.end())}),
  };
  const Decoded d = decode(pcap_file(101, as_packets(frames)));
  ASSERT_FALSE(d.ec);
  ASSERT_EQ(d.connections.size(), 1u);
  EXPECT_TRUE(d.connections[0].smart_socket);
  std::vector<std::string> got;
  for (const auto& m : d.messages) {
    got.push_back(std::string(direction_arrow(m.direction)) + " " +
                  std::to_string(static_cast<int>(m.kind)) + " " + m.service + " | " + m.summary);
  }
  const std::vector<std::string> expected = {
      "H>D 1 host:version | \"host:version\"",
      "D>H 2 host:version | ",
      "D>H 4  | \"0029\"",
      "H>D 1 host:transport:abc | \"host:transport:abc\"",
      "H>D 1 sync: | \"sync:\"",
      "D>H 2 host:transport:abc | ",
      "D>H 2 sync: | ",
      "H>D 5 sync: | sync STAT \"/abc\"",
      "D>H 5 sync: | sync STAT mode=0100644 size=12 mtime=3",
  };
  EXPECT_EQ(got, expected);
}

TEST(CaptureDecoder, FailReplyCarriesTheReason) {
  const std::vector<Bytes> frames = {
      ip_tcp({1, 2, 41000, 5037, 1, 0x18, bytes_of("0013host:transport:nope")}),
      ip_tcp({2, 1, 5037, 41000, 1, 0x18, bytes_of("FAIL0010device not found")}),
  };
  const Decoded d = decode(pcap_file(101, as_packets(frames)));
  ASSERT_EQ(d.messages.size(), 2u);
  EXPECT_EQ(d.messages[1].kind, CapturedKind::smart_fail);
  EXPECT_EQ(d.messages[1].message.payload, bytes_of("device not found"));
}

TEST(CaptureDecoder, NonAdbTrafficIsCountedNotDecoded) {
  Bytes udp = {0x45, 0, 0,  28, 0, 0, 0, 0,  64, 17, 0, 0, 10, 0,
               0,    1, 10, 0,  0, 2, 0, 53, 0,  53, 0, 8, 0,  0};
  const Decoded d = decode(pcap_file(101, as_packets({udp, bytes_of("junk")})));
  ASSERT_FALSE(d.ec);
  EXPECT_TRUE(d.messages.empty());
  EXPECT_EQ(d.stats.other_records, 2u);
}

TEST(CaptureDecoder, TruncatedCaptureKeepsMessagesBeforeTheCut) {
  const Conversation c;
  const Bytes file = pcap_file(101, as_packets(conversation_frames(c)));
  const Decoded whole = decode(file);
  ASSERT_EQ(whole.messages.size(), 6u);
  const Decoded cut = decode(std::span(file).first(file.size() - 10));
  EXPECT_EQ(cut.ec, errc::parse_error);
  EXPECT_EQ(cut.fault.record_index, 8u);
  // The last device segment is cut: the OKAY it completes is lost, earlier messages stay.
  EXPECT_EQ(adb_lines(cut.messages),
            std::vector<std::string>(kExpected.begin(), kExpected.begin() + 3));
}

}  // namespace
}  // namespace adbwire::capture_test
