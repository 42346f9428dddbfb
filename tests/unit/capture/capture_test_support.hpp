// Builders for hand-made captures (independent of CaptureEncoder, so the reader is checked
// against bytes laid out here from the format specifications) and small helpers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "adbwire/capture.hpp"

namespace adbwire::capture_test {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view text);

// One ADB message as on the wire (via protocol::append_message).
Bytes adb_message(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                  std::string_view payload);

struct Packet {
  std::uint32_t interface = 0;
  std::uint64_t time_ns = 0;
  Bytes data;
};

// Classic pcap, either byte order, micro- or nanosecond timestamps.
Bytes pcap_file(std::uint32_t link_type, const std::vector<Packet>& packets,
                bool big_endian = false, bool nanoseconds = false);

struct PcapngInterface {
  std::uint16_t link_type = 1;
  int tsresol = -1;  // if_tsresol byte, or -1 for the default (microseconds)
};

// pcapng with one section, the given interfaces and enhanced packet blocks.
Bytes pcapng_file(const std::vector<PcapngInterface>& interfaces,
                  const std::vector<Packet>& packets, bool big_endian = false);

struct TcpFrame {
  std::uint8_t src_ip = 1;  // 10.0.0.src_ip
  std::uint8_t dst_ip = 2;
  std::uint16_t src_port = 40000;
  std::uint16_t dst_port = 5555;
  std::uint32_t seq = 0;
  std::uint8_t flags = 0x18;  // PSH|ACK
  Bytes payload;
  bool ipv6 = false;
};

// IPv4 (or IPv6) + TCP, without a link header.
Bytes ip_tcp(const TcpFrame& frame);
// Ethernet + ip_tcp().
Bytes ethernet_tcp(const TcpFrame& frame);

// usbmon record (48- or 64-byte header, little-endian) for a bulk transfer.
Bytes usbmon(char event, std::uint8_t endpoint, std::uint8_t device,
             std::span<const std::uint8_t> data, bool mmapped = true);
// USBPcap record for a bulk transfer; completion = info bit 0.
Bytes usbpcap(bool completion, std::uint8_t endpoint, std::uint16_t device,
              std::span<const std::uint8_t> data);

// Decodes a whole in-memory capture, feeding it in chunks of chunk bytes (0: all at once).
struct Decoded {
  std::vector<CapturedMessage> messages;
  std::error_code ec;
  CaptureFault fault;
  CaptureStats stats;
  std::vector<CaptureConnection> connections;
};
Decoded decode(std::span<const std::uint8_t> file, std::size_t chunk = 0);

// Only the ADB messages, as "CMD arg0 arg1 length" lines in capture order.
std::vector<std::string> adb_lines(const std::vector<CapturedMessage>& messages);

// Runs a shell command; returns its stdout; exit_status receives the exit code.
std::string run_command(const std::string& command, int& exit_status);

// True when tshark is on PATH.
bool have_tshark();

inline constexpr const char* kInstallTshark =
    "tshark is missing: install Debian package tshark (apt-get install tshark)";

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
Bytes read_file(const std::filesystem::path& path);

}  // namespace adbwire::capture_test
