// A real usbmon capture of AOSP's adb host talking to a (NuttX) adbd, replayed through the USB
// framing: the bulk IN data through InboundFramer, the bulk OUT data through OutboundSplitter.
// Checked against the capture reader's messages and against what the real host did on the
// wire: the sizes of its IN requests and the cut of its OUT transfers.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adbwire/capture.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/message.hpp"
#include "capture/record_parser.hpp"
#include "transport/usb_framing.hpp"

namespace adbwire::transport {
namespace {

constexpr const char* kCapture =
    "../shared/corpus/pcap/adb-usbmon-dlt220-nuttx-adbd-shell-ls.pcapng";

// The usbmon packet header (Documentation/usb/usbmon.rst): 64 bytes in DLT 220 captures.
struct UsbmonRecord {
  char event = 0;                  // 'S' submit, 'C' complete
  std::uint8_t transfer_type = 0;  // 2 control, 3 bulk
  std::uint8_t endpoint = 0;       // with 0x80 for IN
  std::uint32_t urb_length = 0;    // bytes asked for (IN submit) or sent (OUT submit)
  std::vector<std::uint8_t> data;  // captured data after the header
};

std::vector<UsbmonRecord> read_usbmon(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), {});
  std::vector<UsbmonRecord> records;
  capture_detail::RecordParser parser;
  const auto error = parser.feed(bytes, [&](const capture_detail::RawRecord& raw) {
    if (raw.link_type != 220 || raw.data.size() < 64 || raw.big_endian) return;
    UsbmonRecord record;
    record.event = static_cast<char>(raw.data[8]);
    record.transfer_type = raw.data[9];
    record.endpoint = raw.data[10];
    record.urb_length = protocol::load_le32(raw.data.data() + 32);
    record.data.assign(raw.data.begin() + 64, raw.data.end());
    records.push_back(std::move(record));
  });
  EXPECT_FALSE(error) << parser.fault().detail;
  EXPECT_FALSE(parser.finish());
  return records;
}

// wMaxPacketSize of `endpoint`, from the configuration descriptor the host read (control IN).
std::uint16_t max_packet_size_of(const std::vector<UsbmonRecord>& records, std::uint8_t endpoint) {
  for (const UsbmonRecord& record : records) {
    if (record.transfer_type != 2 || record.event != 'C') continue;
    for (std::size_t at = 0; at + 2 <= record.data.size() && record.data[at] >= 2;
         at += record.data[at]) {
      const std::uint8_t* d = record.data.data() + at;
      if (d[1] == 5 && at + 7 <= record.data.size() && d[2] == endpoint) {
        return static_cast<std::uint16_t>(protocol::load_le16(d + 4) & 0x7ff);
      }
    }
  }
  return 0;
}

std::vector<protocol::Message> decoded(CaptureDirection direction) {
  std::vector<protocol::Message> out;
  decode_capture_file(kCapture, [&](const CapturedMessage& m) {
    if (m.kind == CapturedKind::adb && m.direction == direction) out.push_back(m.message);
  });
  return out;
}

std::vector<protocol::Message> parse(const std::vector<std::uint8_t>& bytes) {
  protocol::MessageReader reader;
  std::vector<protocol::Message> out;
  EXPECT_FALSE(reader.feed(bytes, out)) << reader.error_detail();
  EXPECT_TRUE(reader.at_boundary());
  return out;
}

void expect_same(const std::vector<protocol::Message>& a, const std::vector<protocol::Message>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].command, b[i].command) << i;
    EXPECT_EQ(a[i].arg0, b[i].arg0) << i;
    EXPECT_EQ(a[i].arg1, b[i].arg1) << i;
    EXPECT_EQ(a[i].payload, b[i].payload) << i;
  }
}

constexpr std::uint8_t kBulkIn = 0x82;
constexpr std::uint8_t kBulkOut = 0x01;

TEST(UsbCaptureReplay, DeviceToHostTransfersReassembleAndOurReadsMatchTheRealHosts) {
  const auto records = read_usbmon(kCapture);
  const std::uint16_t packet = max_packet_size_of(records, kBulkIn);
  ASSERT_EQ(packet, 64) << "the capture's configuration descriptor (full-speed NuttX device)";
  InboundFramer framer(packet);
  std::vector<std::uint8_t> stream;
  std::size_t completions = 0;
  for (const UsbmonRecord& record : records) {
    if (record.transfer_type != 3 || record.endpoint != kBulkIn) continue;
    if (record.event == 'S') {
      EXPECT_EQ(framer.next_read_size(), record.urb_length)
          << "adb asked for " << record.urb_length << " bytes before completion " << completions;
    } else {
      framer.accept(record.data, stream);
      ++completions;
    }
  }
  EXPECT_GT(completions, 0u);
  EXPECT_EQ(framer.discarded_bytes(), 0u);
  const auto messages = parse(stream);
  EXPECT_FALSE(messages.empty());
  expect_same(messages, decoded(CaptureDirection::device_to_host));
}

TEST(UsbCaptureReplay, HostToDeviceBytesSplitIntoTheRealHostsTransfers) {
  const auto records = read_usbmon(kCapture);
  const std::uint16_t packet = max_packet_size_of(records, kBulkOut);
  ASSERT_NE(packet, 0);
  std::vector<std::uint8_t> stream;
  std::vector<std::size_t> real_transfers;
  for (const UsbmonRecord& record : records) {
    if (record.transfer_type != 3 || record.endpoint != kBulkOut || record.event != 'S') continue;
    ASSERT_EQ(record.data.size(), record.urb_length) << "OUT data not fully captured";
    stream.insert(stream.end(), record.data.begin(), record.data.end());
    real_transfers.push_back(record.urb_length);
  }
  OutboundSplitter splitter;
  std::vector<std::vector<std::uint8_t>> transfers;
  ASSERT_FALSE(splitter.feed(stream, transfers));
  EXPECT_TRUE(splitter.at_boundary());
  std::vector<std::size_t> ours;
  for (const auto& transfer : transfers) {
    ours.push_back(transfer.size());
    if (needs_zero_length_packet(transfer.size(), packet)) ours.push_back(0);
  }
  EXPECT_EQ(ours, real_transfers);
  EXPECT_FALSE(ours.empty());
  expect_same(parse(stream), decoded(CaptureDirection::host_to_device));
}

}  // namespace
}  // namespace adbwire::transport
