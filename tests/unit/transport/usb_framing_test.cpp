// USB framing on a simulated bulk pipe: ZLP rules, transfer splitting, read planning,
// short-read reassembly, halt recovery and a vanishing device, all without hardware.
#include "transport/usb_framing.hpp"

#include <gtest/gtest.h>

#include <asio/error.hpp>
#include <atomic>
#include <future>
#include <numeric>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/message.hpp"
#include "unit/transport/simulated_usb.hpp"

namespace adbwire::transport {
namespace {

using test::SimulatedPipe;
using test::SimulatedWire;
using Bytes = std::vector<std::uint8_t>;

Bytes message(std::uint32_t command, std::size_t payload_size, std::uint8_t fill = 0x5a) {
  Bytes out;
  const Bytes payload(payload_size, fill);
  protocol::append_message(out, command, 1, 2, payload, false);
  return out;
}

Bytes header_of(const Bytes& whole) { return Bytes(whole.begin(), whole.begin() + 24); }
Bytes payload_of(const Bytes& whole) { return Bytes(whole.begin() + 24, whole.end()); }

TEST(UsbZlp, FollowsAospMaskRuleForEveryBulkPacketSize) {
  for (const std::uint16_t packet : {8, 16, 32, 64, 512, 1024}) {
    for (std::size_t size = 0; size <= 4100; ++size) {
      const bool aosp = size != 0 && (size & (packet - 1u)) == 0;
      ASSERT_EQ(needs_zero_length_packet(size, packet), aosp) << size << " on " << packet;
    }
  }
}

TEST(UsbZlp, KnownCases) {
  EXPECT_TRUE(needs_zero_length_packet(512, 512));
  EXPECT_TRUE(needs_zero_length_packet(504 + 8, 512));  // adb_client #110: sync data + header
  EXPECT_FALSE(needs_zero_length_packet(24, 512));
  EXPECT_FALSE(needs_zero_length_packet(0, 512));
  EXPECT_TRUE(needs_zero_length_packet(24, 8));  // full speed with 8-byte packets: AOSP too
  EXPECT_EQ(round_up_to_packets(24, 64), 64u);
  EXPECT_EQ(round_up_to_packets(102, 64), 128u);
  EXPECT_EQ(round_up_to_packets(1024, 512), 1024u);
}

// Several messages, then the expected transfers: each header, each non-empty payload.
struct Stream {
  Bytes bytes;
  std::vector<Bytes> transfers;
};

Stream sample_stream() {
  Stream stream;
  for (const std::size_t size : {0u, 1u, 512u, 24u, 1024u, 4099u, 0u}) {
    const Bytes m = message(protocol::kCommandWrte, size, static_cast<std::uint8_t>(size));
    stream.bytes.insert(stream.bytes.end(), m.begin(), m.end());
    stream.transfers.push_back(header_of(m));
    if (size != 0) stream.transfers.push_back(payload_of(m));
  }
  return stream;
}

TEST(OutboundSplitter, CutsAtMessageBoundariesWhateverTheWriteSizes) {
  const Stream stream = sample_stream();
  for (std::size_t cut = 1; cut <= stream.bytes.size(); cut += (cut < 64 ? 1 : 97)) {
    OutboundSplitter splitter;
    std::vector<Bytes> transfers;
    for (std::size_t at = 0; at < stream.bytes.size(); at += cut) {
      const std::size_t n = std::min(cut, stream.bytes.size() - at);
      ASSERT_FALSE(splitter.feed(std::span(stream.bytes).subspan(at, n), transfers));
    }
    EXPECT_EQ(transfers, stream.transfers) << "cut " << cut;
    EXPECT_TRUE(splitter.at_boundary());
  }
}

TEST(OutboundSplitter, HoldsAnIncompletePayloadBack) {
  const Bytes m = message(protocol::kCommandWrte, 100);
  OutboundSplitter splitter;
  std::vector<Bytes> transfers;
  ASSERT_FALSE(splitter.feed(std::span(m).first(60), transfers));
  EXPECT_EQ(transfers.size(), 1u);
  EXPECT_FALSE(splitter.at_boundary());
  ASSERT_FALSE(splitter.feed(std::span(m).subspan(60), transfers));
  ASSERT_EQ(transfers.size(), 2u);
  EXPECT_EQ(transfers[1], payload_of(m));
}

TEST(OutboundSplitter, RejectsAnImplausibleHeader) {
  Bytes bad = message(protocol::kCommandWrte, 4);
  bad[20] ^= 0xff;  // magic
  OutboundSplitter splitter;
  std::vector<Bytes> transfers;
  EXPECT_EQ(splitter.feed(bad, transfers), errc::protocol_error);
  EXPECT_TRUE(transfers.empty());
  EXPECT_EQ(splitter.feed(message(protocol::kCommandOkay, 0), transfers), errc::protocol_error);
}

TEST(InboundFramer, AsksForExactlyWhatIsMissingInWholePackets) {
  InboundFramer framer(64);
  EXPECT_EQ(framer.next_read_size(), 64u);  // a header, as the real host asks
  const Bytes m = message(protocol::kCommandWrte, 102);
  Bytes out;
  framer.accept(header_of(m), out);
  EXPECT_EQ(framer.next_read_size(), 128u);
  framer.accept(std::span(m).subspan(24, 64), out);  // one full packet, then a timeout
  EXPECT_EQ(framer.next_read_size(), 64u);           // the 38 bytes still missing
  framer.accept(std::span(m).subspan(88), out);
  EXPECT_TRUE(framer.at_boundary());
  EXPECT_EQ(out, m);
}

// With 8-byte packets a timeout can cut the very first header after one packet; an empty
// slice after it must not throw that packet away (it would lose the device's CNXN).
TEST(InboundFramer, EmptyTimeoutSliceKeepsAHalfReadFirstHeader) {
  InboundFramer framer(8);
  const Bytes m = message(protocol::kCommandCnxn, 16);
  Bytes out;
  framer.accept(std::span(m).first(8), out);
  framer.accept({}, out);
  framer.accept(std::span(m).subspan(8, 16), out);
  framer.accept(std::span(m).subspan(24), out);
  EXPECT_EQ(out, m);
  EXPECT_EQ(framer.discarded_bytes(), 0u);
}

TEST(InboundFramer, PayloadOfWholePacketsIsReadWithoutAskingForMore) {
  InboundFramer framer(512);
  const Bytes m = message(protocol::kCommandWrte, 1024);
  Bytes out;
  framer.accept(header_of(m), out);
  EXPECT_EQ(framer.next_read_size(), 1024u);  // not 1536: adbd sends no ZLP to end it
}

// A bus cuts a timed-out transfer after whole packets: every multiple of an 8-byte packet.
TEST(InboundFramer, ShortReadsReassembleAtEveryPacketSplit) {
  const Stream stream = sample_stream();
  for (std::size_t cut = 8; cut <= 600; cut += 8) {
    InboundFramer framer(8);
    Bytes out;
    for (std::size_t at = 0; at < stream.bytes.size(); at += cut) {
      framer.accept(std::span(stream.bytes).subspan(at, std::min(cut, stream.bytes.size() - at)),
                    out);
    }
    EXPECT_EQ(out, stream.bytes) << "cut " << cut;
    EXPECT_TRUE(framer.at_boundary());
    EXPECT_EQ(framer.discarded_bytes(), 0u);
  }
}

// Once in sync, any split reassembles (the device may also merge header and payload).
TEST(InboundFramer, InSyncAnySplitReassembles) {
  const Stream stream = sample_stream();
  for (std::size_t cut = 1; cut <= 600; cut += (cut < 40 ? 1 : 61)) {
    InboundFramer framer(512);
    Bytes out;
    framer.accept(std::span(stream.bytes).first(24), out);
    for (std::size_t at = 24; at < stream.bytes.size(); at += cut) {
      framer.accept(std::span(stream.bytes).subspan(at, std::min(cut, stream.bytes.size() - at)),
                    out);
    }
    EXPECT_EQ(out, stream.bytes) << "cut " << cut;
    EXPECT_TRUE(framer.at_boundary());
    EXPECT_FALSE(framer.failed());
  }
}

TEST(InboundFramer, HeaderAndPayloadMergedInOneTransferAreSplitCorrectly) {
  InboundFramer framer(512);
  Bytes two = message(protocol::kCommandWrte, 40);
  const Bytes second = message(protocol::kCommandOkay, 0);
  two.insert(two.end(), second.begin(), second.end());
  Bytes out;
  framer.accept(two, out);
  EXPECT_EQ(out, two);
  EXPECT_TRUE(framer.at_boundary());
}

TEST(InboundFramer, DropsWhatAPreviousHostLeftBeforeTheFirstHeader) {
  InboundFramer framer(512);
  Bytes out;
  framer.accept(Bytes(512, 0x41), out);  // the tail of a payload nobody read
  framer.accept(Bytes(7, 0x42), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(framer.discarded_bytes(), 519u);
  const Bytes m = message(protocol::kCommandCnxn, 10);
  framer.accept(header_of(m), out);
  framer.accept(payload_of(m), out);
  EXPECT_EQ(out, m);
}

TEST(InboundFramer, PassesABadHeaderUpOnceInSyncAndStopsPlanning) {
  InboundFramer framer(512);
  Bytes out;
  framer.accept(message(protocol::kCommandOkay, 0), out);
  Bytes garbage(24, 0x33);
  framer.accept(garbage, out);
  EXPECT_TRUE(framer.failed());
  EXPECT_EQ(out.size(), 48u);  // the session sees the garbage and names the error
}

// ---- UsbLink over the simulated pipe --------------------------------------------------------

struct Rig {
  explicit Rig(std::uint16_t packet = 512)
      : wire(std::make_shared<SimulatedWire>(packet)), pipe(wire), link(pipe, "usb:sim") {}
  std::shared_ptr<SimulatedWire> wire;
  SimulatedPipe pipe;
  UsbLink link;
  std::atomic<bool> stop{false};
};

TEST(UsbLink, PayloadOfWholePacketsIsFollowedByAZeroLengthPacket) {
  Rig rig(512);
  const Bytes m = message(protocol::kCommandWrte, 512);
  ASSERT_FALSE(rig.link.write(m, rig.stop));
  EXPECT_EQ(rig.wire->out_transfers(), (std::vector<std::size_t>{24, 512, 0}));
  // adbd's 16 KiB reads end where they must: the header alone, then the payload alone.
  EXPECT_EQ(rig.wire->device_read(16384, std::chrono::seconds(5)), header_of(m));
  EXPECT_EQ(rig.wire->device_read(16384, std::chrono::seconds(5)), payload_of(m));
}

TEST(UsbLink, OtherSizesGetNoZeroLengthPacket) {
  Rig rig(512);
  Bytes stream = message(protocol::kCommandWrte, 1000);
  const Bytes okay = message(protocol::kCommandOkay, 0);
  stream.insert(stream.end(), okay.begin(), okay.end());
  ASSERT_FALSE(rig.link.write(stream, rig.stop));
  EXPECT_EQ(rig.wire->out_transfers(), (std::vector<std::size_t>{24, 1000, 24}));
}

TEST(UsbLink, FullSpeedPacketsOf64) {
  Rig rig(64);
  ASSERT_FALSE(rig.link.write(message(protocol::kCommandWrte, 128), rig.stop));
  ASSERT_FALSE(rig.link.write(message(protocol::kCommandWrte, 100), rig.stop));
  EXPECT_EQ(rig.wire->out_transfers(), (std::vector<std::size_t>{24, 128, 0, 24, 100}));
}

// Proves the simulated wire models the hazard the ZLP exists for: without one, adbd's read
// of a 512-byte payload runs on into the next header.
TEST(SimulatedWire, WithoutAZlpTheNextHeaderMergesIntoThePayloadRead) {
  SimulatedWire wire(512);
  wire.host_out(Bytes(512, 1));
  wire.host_out(Bytes(24, 2));
  const auto block = wire.device_read(16384, std::chrono::seconds(5));
  ASSERT_TRUE(block);
  EXPECT_EQ(block->size(), 536u);
}

TEST(UsbLink, ReadsHeaderThenExactPayloadFromADeviceThatSendsNoZlp) {
  Rig rig(512);
  const Bytes first = message(protocol::kCommandWrte, 1024);
  const Bytes second = message(protocol::kCommandOkay, 0);
  for (const Bytes* m : {&first, &second}) {
    rig.wire->device_write(header_of(*m));
    rig.wire->device_write(payload_of(*m));
  }
  Bytes out;
  while (out.size() < first.size() + second.size()) ASSERT_FALSE(rig.link.read(out, rig.stop));
  Bytes both = first;
  both.insert(both.end(), second.begin(), second.end());
  EXPECT_EQ(out, both);
  EXPECT_EQ(rig.wire->in_requests(), (std::vector<std::size_t>{512, 1024, 512}));
}

TEST(UsbLink, StallBeforeAnyByteIsClearedAndRetried) {
  Rig rig(512);
  rig.wire->stall_out(0, 1);
  const Bytes m = message(protocol::kCommandWrte, 300);
  ASSERT_FALSE(rig.link.write(m, rig.stop));
  EXPECT_EQ(rig.wire->clear_halts(), 1);
  EXPECT_EQ(rig.wire->resets(), 0);
  EXPECT_EQ(rig.wire->device_read(16384, std::chrono::seconds(5)), header_of(m));
  EXPECT_EQ(rig.wire->device_read(16384, std::chrono::seconds(5)), payload_of(m));
}

TEST(UsbLink, StallMidTransferResetsTheDeviceAndFailsClearly) {
  Rig rig(512);
  rig.wire->stall_out(2, 1);  // the header passes, then one payload packet, then a halt
  const std::error_code error = rig.link.write(message(protocol::kCommandWrte, 2048), rig.stop);
  EXPECT_EQ(error, make_error_code(UsbLinkError::stalled));
  EXPECT_NE(error.message().find("reset"), std::string::npos) << error.message();
  EXPECT_EQ(rig.wire->resets(), 1);
}

TEST(UsbLink, StallThatPersistsAfterClearHaltEndsInAReset) {
  Rig rig(512);
  rig.wire->stall_out(0, 10);
  const std::error_code error = rig.link.write(message(protocol::kCommandOkay, 0), rig.stop);
  EXPECT_EQ(error, make_error_code(UsbLinkError::stall_persists));
  EXPECT_EQ(rig.wire->clear_halts(), UsbLink::kMaxStallRetries);
  EXPECT_EQ(rig.wire->resets(), 1);
}

TEST(UsbLink, InStallBetweenMessagesRecovers) {
  Rig rig(512);
  rig.wire->stall_in(0, 1);
  const Bytes m = message(protocol::kCommandOkay, 0);
  rig.wire->device_write(m);
  Bytes out;
  ASSERT_FALSE(rig.link.read(out, rig.stop));
  EXPECT_EQ(out, m);
  EXPECT_EQ(rig.wire->clear_halts(), 1);
}

TEST(UsbLink, InStallMidPayloadDeliversWhatCameThenFails) {
  Rig rig(512);
  const Bytes m = message(protocol::kCommandWrte, 2048);
  rig.wire->device_write(header_of(m));
  rig.wire->device_write(payload_of(m));
  rig.wire->stall_in(2, 1);  // header packet, one payload packet, then a halt
  Bytes out;
  ASSERT_FALSE(rig.link.read(out, rig.stop));  // the header
  ASSERT_FALSE(rig.link.read(out, rig.stop));  // the 512 bytes before the halt
  EXPECT_EQ(out.size(), 24u + 512u);
  EXPECT_EQ(rig.link.read(out, rig.stop), make_error_code(UsbLinkError::stalled));
  EXPECT_EQ(rig.wire->resets(), 1);
}

TEST(UsbLink, VanishedDeviceEndsABlockedReadAndLaterWrites) {
  Rig rig(512);
  auto reader = std::async(std::launch::async, [&] {
    Bytes out;
    return rig.link.read(out, rig.stop);
  });
  rig.wire->vanish();
  EXPECT_EQ(reader.get(), make_error_code(UsbLinkError::vanished));
  EXPECT_EQ(rig.link.write(message(protocol::kCommandOkay, 0), rig.stop),
            make_error_code(UsbLinkError::vanished));
}

TEST(UsbLink, StopEndsABlockedReadWithOperationAborted) {
  Rig rig(512);
  auto reader = std::async(std::launch::async, [&] {
    Bytes out;
    return rig.link.read(out, rig.stop);
  });
  rig.stop.store(true);
  EXPECT_EQ(reader.get(), std::error_code(asio::error::operation_aborted));
}

}  // namespace
}  // namespace adbwire::transport
