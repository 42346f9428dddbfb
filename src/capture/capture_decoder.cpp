#include <map>
#include <utility>

#include "adbwire/capture.hpp"
#include "adbwire/error.hpp"
#include "capture/adb_framer.hpp"
#include "capture/link_layer.hpp"
#include "capture/payload_preview.hpp"
#include "capture/record_parser.hpp"
#include "capture/smart_socket_decoder.hpp"
#include "capture/tcp_reassembler.hpp"

namespace adbwire {

using capture_detail::AdbFramer;
using capture_detail::Frame;
using capture_detail::IpEndpoint;
using capture_detail::RawRecord;
using capture_detail::SmartSocketDecoder;
using capture_detail::StreamTable;
using capture_detail::TcpReassembler;

namespace {

constexpr std::uint16_t kServerPort = 5037;

// Ports an ADB peer listens on: adbd's 5555 and the emulators' 5555–5585.
bool is_listening_port(std::uint16_t port) {
  return port == kServerPort || (port >= 5555 && port <= 5585);
}

bool starts_like_server_request(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  for (std::size_t i = 0; i < 4; ++i) {
    const char c = static_cast<char>(bytes[i]);
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  return bytes[4] == 'h' && bytes[5] == 'o' && bytes[6] == 's' && bytes[7] == 't';
}

}  // namespace

const char* direction_arrow(CaptureDirection direction) noexcept {
  return direction == CaptureDirection::host_to_device ? "H>D" : "D>H";
}

struct CaptureDecoder::Impl {
  // One framer, reassembler, … per direction: index 0 host → device, 1 device → host.
  struct TcpConnection {
    std::uint32_t id = 0;
    TcpReassembler reassembler[2];
    AdbFramer framer[2];
    bool decided = false;
    bool smart = false;
    SmartSocketDecoder smart_decoder;
    StreamTable streams;
  };
  struct UsbConnection {
    std::uint32_t id = 0;
    std::map<std::uint8_t, AdbFramer> endpoints;
    StreamTable streams;
  };

  capture_detail::RecordParser parser;
  CaptureStats stats;
  std::vector<CaptureConnection> connections;
  std::map<std::pair<IpEndpoint, IpEndpoint>, TcpConnection> tcp;  // key: (host, device)
  std::map<std::pair<std::uint32_t, std::uint32_t>, UsbConnection> usb;
  std::uint64_t record = 0;
  std::int64_t time_ns = 0;
  std::vector<CapturedMessage>* out = nullptr;

  static std::size_t side(CaptureDirection direction) {
    return direction == CaptureDirection::host_to_device ? 0 : 1;
  }

  void on_record(const RawRecord& raw) {
    ++stats.records;
    record = raw.number;
    time_ns = raw.time_ns;
    const Frame frame = capture_detail::dissect_frame(raw.link_type, raw.big_endian, raw.data);
    switch (frame.kind) {
      case Frame::Kind::tcp:
        ++stats.tcp_segments;
        on_tcp(frame.tcp);
        break;
      case Frame::Kind::usb:
        ++stats.usb_transfers;
        on_usb(frame.usb);
        break;
      case Frame::Kind::other:
        ++stats.other_records;
        break;
    }
  }

  std::uint32_t add_connection(std::string description) {
    const auto id = static_cast<std::uint32_t>(connections.size() + 1);
    connections.push_back({id, std::move(description), false});
    return id;
  }

  void on_tcp(const capture_detail::TcpSegment& segment) {
    const bool syn = (segment.flags & capture_detail::kTcpSyn) != 0;
    const bool ack = (segment.flags & capture_detail::kTcpAck) != 0;
    auto it = tcp.find({segment.source, segment.destination});
    CaptureDirection direction = CaptureDirection::host_to_device;
    if (it == tcp.end()) {
      it = tcp.find({segment.destination, segment.source});
      direction = CaptureDirection::device_to_host;
    }
    if (it == tcp.end()) {
      // Who is the host: the SYN's sender, else the side not on a listening port.
      bool source_is_host = true;
      if (syn) {
        source_is_host = !ack;
      } else if (is_listening_port(segment.source.port) !=
                 is_listening_port(segment.destination.port)) {
        source_is_host = is_listening_port(segment.destination.port);
      } else {
        source_is_host = segment.source.port > segment.destination.port;
      }
      const IpEndpoint& host = source_is_host ? segment.source : segment.destination;
      const IpEndpoint& device = source_is_host ? segment.destination : segment.source;
      TcpConnection connection;
      connection.id = add_connection("tcp " + capture_detail::to_string(host) + " > " +
                                     capture_detail::to_string(device));
      it = tcp.emplace(std::pair{host, device}, std::move(connection)).first;
      direction =
          source_is_host ? CaptureDirection::host_to_device : CaptureDirection::device_to_host;
    }
    TcpConnection& connection = it->second;
    const bool is_smart_port = it->first.second.port == kServerPort;
    TcpReassembler& reassembler = connection.reassembler[side(direction)];
    const std::uint64_t lost_before = reassembler.lost_bytes();
    reassembler.segment(segment.sequence, syn, segment.payload_length, segment.payload,
                        [&](bool gap, std::span<const std::uint8_t> bytes) {
                          on_stream_bytes(connection, is_smart_port, direction, gap, bytes);
                        });
    stats.lost_bytes += reassembler.lost_bytes() - lost_before;
  }

  void on_stream_bytes(TcpConnection& connection, bool is_smart_port, CaptureDirection direction,
                       bool gap, std::span<const std::uint8_t> bytes) {
    if (!connection.decided) {
      connection.decided = true;
      connection.smart = is_smart_port || (direction == CaptureDirection::host_to_device &&
                                           starts_like_server_request(bytes));
      connections[connection.id - 1].smart_socket = connection.smart;
    }
    if (connection.smart) {
      if (gap) connection.smart_decoder.gap(direction);
      std::vector<SmartSocketDecoder::Unit> units;
      connection.smart_decoder.feed(direction, bytes, units);
      for (auto& unit : units) {
        CapturedMessage message = make_message(connection.id, direction);
        message.kind = unit.kind;
        message.message.payload = std::move(unit.payload);
        message.service = std::move(unit.service);
        message.summary = std::move(unit.summary);
        out->push_back(std::move(message));
      }
      return;
    }
    on_adb_bytes(connection.framer[side(direction)], connection.streams, connection.id, direction,
                 gap, bytes);
  }

  void on_adb_bytes(AdbFramer& framer, StreamTable& streams, std::uint32_t connection,
                    CaptureDirection direction, bool gap, std::span<const std::uint8_t> bytes) {
    const std::uint64_t resyncs_before = framer.resyncs();
    const std::uint64_t skipped_before = framer.skipped_bytes();
    if (gap) framer.gap();
    std::vector<protocol::Message> messages;
    framer.feed(bytes, messages);
    stats.resyncs += framer.resyncs() - resyncs_before;
    stats.skipped_bytes += framer.skipped_bytes() - skipped_before;
    for (auto& decoded : messages) {
      CapturedMessage message = make_message(connection, direction);
      message.message = std::move(decoded);
      streams.describe(direction, message.message, message.service, message.summary);
      out->push_back(std::move(message));
    }
  }

  void on_usb(const capture_detail::UsbTransfer& transfer) {
    auto it = usb.find({transfer.bus, transfer.device});
    if (it == usb.end()) {
      UsbConnection connection;
      connection.id = add_connection("usb bus " + std::to_string(transfer.bus) + " device " +
                                     std::to_string(transfer.device));
      it = usb.emplace(std::pair{transfer.bus, transfer.device}, std::move(connection)).first;
    }
    UsbConnection& connection = it->second;
    const CaptureDirection direction = (transfer.endpoint & 0x80) != 0
                                           ? CaptureDirection::device_to_host
                                           : CaptureDirection::host_to_device;
    on_adb_bytes(connection.endpoints[transfer.endpoint], connection.streams, connection.id,
                 direction, false, transfer.data);
  }

  CapturedMessage make_message(std::uint32_t connection, CaptureDirection direction) const {
    CapturedMessage message;
    message.record = record;
    message.time =
        std::chrono::sys_time<std::chrono::nanoseconds>(std::chrono::nanoseconds(time_ns));
    message.connection = connection;
    message.direction = direction;
    return message;
  }

  void flush() {
    for (auto& entry : tcp) {
      TcpConnection& connection = entry.second;
      const bool is_smart_port = entry.first.second.port == kServerPort;
      for (const CaptureDirection direction :
           {CaptureDirection::host_to_device, CaptureDirection::device_to_host}) {
        TcpReassembler& reassembler = connection.reassembler[side(direction)];
        const std::uint64_t lost_before = reassembler.lost_bytes();
        reassembler.flush([&](bool gap, std::span<const std::uint8_t> bytes) {
          on_stream_bytes(connection, is_smart_port, direction, gap, bytes);
        });
        stats.lost_bytes += reassembler.lost_bytes() - lost_before;
      }
    }
  }
};

CaptureDecoder::CaptureDecoder() : impl_(std::make_unique<Impl>()) {}
CaptureDecoder::~CaptureDecoder() = default;
CaptureDecoder::CaptureDecoder(CaptureDecoder&&) noexcept = default;
CaptureDecoder& CaptureDecoder::operator=(CaptureDecoder&&) noexcept = default;

std::error_code CaptureDecoder::feed(std::span<const std::uint8_t> bytes,
                                     std::vector<CapturedMessage>& out) {
  impl_->out = &out;
  return impl_->parser.feed(bytes, [this](const RawRecord& raw) { impl_->on_record(raw); });
}

std::error_code CaptureDecoder::finish(std::vector<CapturedMessage>& out) {
  impl_->out = &out;
  const std::error_code ec = impl_->parser.finish();
  impl_->flush();
  return ec;
}

const CaptureFault& CaptureDecoder::fault() const noexcept { return impl_->parser.fault(); }
const CaptureStats& CaptureDecoder::stats() const noexcept { return impl_->stats; }
const std::vector<CaptureConnection>& CaptureDecoder::connections() const noexcept {
  return impl_->connections;
}

}  // namespace adbwire
