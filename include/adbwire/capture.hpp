// Reading packet captures (pcap / pcapng) of ADB traffic back into ADB messages.
//
// Link types: Ethernet, Linux cooked (SLL, SLL2), BSD loopback/null, raw IP, Linux usbmon
// (DLT 189, 220) and USBPcap (DLT 249). TCP is reassembled per connection and direction
// (IPv4, IPv6; out-of-order and retransmitted segments); a stream that starts mid-message
// or loses bytes resynchronises on the next valid ADB header. Port 5555-style device traffic
// gives ADB messages; adb server (5037, "smart socket") traffic gives request/reply lines.
// USB bulk transfers are joined per endpoint (submitted OUT data, completed IN data).
//
// CaptureDecoder is sans-IO: it is fed the file's bytes, split anywhere, and keeps one
// buffered record plus per-connection state, so memory does not grow with the file size.
// decode_capture_file() is the thin file-reading wrapper.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/protocol/message.hpp"

namespace adbwire {

// Which way bytes went. For adb server (smart socket) traffic "host" is the client.
enum class CaptureDirection : std::uint8_t { host_to_device, device_to_host };

// "H>D" or "D>H".
const char* direction_arrow(CaptureDirection direction) noexcept;

// What a decoded unit is.
enum class CapturedKind : std::uint8_t {
  adb,            // an ADB transport message (message holds command, args, payload)
  smart_request,  // adb server request: the service after the 4-hex-digit length
  smart_okay,     // adb server reply "OKAY"
  smart_fail,     // adb server reply "FAIL"; payload holds the reason
  smart_data,     // adb server length-prefixed reply data (host:version, devices, …)
  raw_data,       // bytes of a smart-socket connection after it switched to a device service
};

// One decoded unit, in the order the capture completed them.
struct CapturedMessage {
  std::uint64_t record = 0;  // 1-based record that completed it (Wireshark frame number)
  std::chrono::sys_time<std::chrono::nanoseconds> time{};  // that record's timestamp
  std::uint32_t connection = 0;  // 1-based, see CaptureDecoder::connections()
  CaptureDirection direction = CaptureDirection::host_to_device;
  CapturedKind kind = CapturedKind::adb;
  protocol::Message message;  // for smart-socket kinds only payload is set
  std::string service;        // service the stream was opened with, when the OPEN was seen
  std::string summary;        // short preview of the payload; sync and shell v2 decoded
};

// Where and why reading stopped.
struct CaptureFault {
  // 1-based number of the packet record that could not be read (packets read before it +1);
  // 0 when the file header itself is bad.
  std::uint64_t record_index = 0;
  std::uint64_t byte_offset = 0;  // file offset of that record (pcap) or block (pcapng)
  std::string detail;             // what was wrong, for a person
};

// One TCP connection or USB device seen in the capture.
struct CaptureConnection {
  std::uint32_t id = 0;
  std::string description;  // "tcp 10.0.0.1:40001 > 10.0.0.2:5555", "usb bus 1 device 5"
  bool smart_socket = false;
};

// Counters for what was read and what was skipped.
struct CaptureStats {
  std::uint64_t records = 0;        // packet records read
  std::uint64_t tcp_segments = 0;   // records that were TCP
  std::uint64_t usb_transfers = 0;  // records that were USB bulk transfers with data
  std::uint64_t other_records = 0;  // neither (ARP, UDP, USB control, unsupported link type)
  std::uint64_t resyncs = 0;        // times an ADB byte stream lost framing and resynchronised
  std::uint64_t skipped_bytes = 0;  // bytes dropped while resynchronising
  std::uint64_t lost_bytes = 0;     // TCP bytes never captured (gaps, snap length)
};

// Not thread-safe: one decoder per capture, used from one thread at a time. Movable.
class CaptureDecoder {
 public:
  CaptureDecoder();
  ~CaptureDecoder();
  CaptureDecoder(CaptureDecoder&&) noexcept;
  CaptureDecoder& operator=(CaptureDecoder&&) noexcept;

  // Consumes all of bytes (the next part of a pcap or pcapng file) and appends every unit
  // completed by them to out. Returns parse_error for a malformed file (see fault()); units
  // completed before the bad record are still appended, and the decoder then stays failed.
  std::error_code feed(std::span<const std::uint8_t> bytes, std::vector<CapturedMessage>& out);

  // End of file: delivers TCP data still held back by gaps and returns parse_error if the
  // file ended inside its header or a record (a truncated capture).
  std::error_code finish(std::vector<CapturedMessage>& out);

  const CaptureFault& fault() const noexcept;
  const CaptureStats& stats() const noexcept;
  const std::vector<CaptureConnection>& connections() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What decode_capture_file() read.
struct CaptureSummary {
  CaptureStats stats;
  std::vector<CaptureConnection> connections;
  CaptureFault fault;  // detail is empty when the whole file was read
};

// Reads path block by block and calls on_message for each unit as it is decoded. Errors:
// not_found / io_error (cannot open or read the file), parse_error (malformed or truncated
// capture; units before the bad record were already delivered, and the returned summary's
// fault names the record and offset). The throwing form throws adbwire::Error with a detail
// naming the file, record and offset. Blocks only on local file reads.
CaptureSummary decode_capture_file(const std::filesystem::path& path,
                                   const std::function<void(const CapturedMessage&)>& on_message);
CaptureSummary decode_capture_file(const std::filesystem::path& path,
                                   const std::function<void(const CapturedMessage&)>& on_message,
                                   std::error_code& ec);

}  // namespace adbwire
