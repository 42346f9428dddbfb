// Recording ADB traffic as pcapng that Wireshark (and CaptureDecoder) read back.
//
// Every byte sent or received is recorded with its timestamp. Over TCP the bytes become
// synthesized Ethernet/IPv4/TCP frames (a SYN, SYN-ACK, ACK first; consistent sequence and
// acknowledgement numbers; valid IP and TCP checksums), so Wireshark's ADB dissector decodes
// them with "Decode As" tcp.port==device_port → adb. Over USB they become Linux usbmon
// records (LINKTYPE_USB_LINUX_MMAPPED, 220): bulk OUT submissions and bulk IN completions.
//
// Wireshark's ADB dissector reads at most one message per TCP segment, so the encoder follows
// the ADB framing of each direction and starts a new segment at every message boundary (and,
// over USB, a new URB between header and payload, as adb itself sends them). Bytes that do
// not frame as ADB (adb server traffic) are recorded as they come.
//
// CaptureEncoder produces the bytes (sans-IO); CaptureWriter writes them to a file and
// flushes after every record, so a crash loses at most the record being written.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "adbwire/capture.hpp"

namespace adbwire {

using CaptureTime = std::chrono::sys_time<std::chrono::nanoseconds>;

// How the recorded connection is presented in the capture.
enum class CaptureLink : std::uint8_t { tcp, usb };

struct CaptureWriterOptions {
  CaptureLink link = CaptureLink::tcp;
  // TCP: the addresses and ports the frames carry (the real ones when known).
  std::array<std::uint8_t, 4> host_address{127, 0, 0, 1};
  std::array<std::uint8_t, 4> device_address{127, 0, 0, 1};
  std::uint16_t host_port = 50000;
  std::uint16_t device_port = 5555;
  // USB: the bus and device number the usbmon records carry.
  std::uint16_t usb_bus = 1;
  std::uint8_t usb_device = 2;
};

// Turns recorded bytes into pcapng blocks. Not thread-safe; one per recorded connection.
class CaptureEncoder {
 public:
  // Largest TCP payload per synthesized segment (fits the IPv4 total length field).
  static constexpr std::size_t kMaxSegment = 65000;

  explicit CaptureEncoder(CaptureWriterOptions options = {});

  // Appends the section header, the interface description and, for TCP, the handshake.
  void begin(CaptureTime time, std::vector<std::uint8_t>& out);

  // Appends only this connection's start (TCP: the handshake; USB: nothing), for a further
  // connection in a file whose header another encoder with the same link already wrote.
  void begin_connection(CaptureTime time, std::vector<std::uint8_t>& out);

  // Appends the frames carrying bytes in direction (several TCP segments or URBs when large).
  void record(CaptureDirection direction, std::span<const std::uint8_t> bytes, CaptureTime time,
              std::vector<std::uint8_t>& out);

  // Appends the connection's end (TCP: FIN, FIN, ACK; USB: nothing).
  void end(CaptureTime time, std::vector<std::uint8_t>& out);

 private:
  void tcp_frame(bool from_host, std::uint8_t flags, std::span<const std::uint8_t> payload,
                 CaptureTime time, std::vector<std::uint8_t>& out);
  void usb_urb(bool submit, bool in, std::span<const std::uint8_t> data, std::uint32_t length,
               CaptureTime time, std::vector<std::uint8_t>& out);
  void packet_block(std::span<const std::uint8_t> frame, CaptureTime time,
                    std::vector<std::uint8_t>& out);

  // Where one direction is in the ADB message stream.
  struct Framing {
    std::array<std::uint8_t, 24> header{};
    std::size_t header_filled = 0;
    std::uint64_t payload_left = 0;
    bool lost = false;  // not ADB framing: stop splitting
  };
  // Length of the next piece of bytes that ends at the latest at a message boundary (or, when
  // split_header, at the end of a header).
  static std::size_t next_piece(Framing& framing, std::span<const std::uint8_t> bytes,
                                bool split_header);

  CaptureWriterOptions options_;
  Framing framing_[2];  // host → device, device → host
  std::uint32_t host_sequence_ = 0x10000000;
  std::uint32_t device_sequence_ = 0x20000000;
  std::uint16_t ip_id_ = 1;
  std::uint64_t urb_id_ = 0xadb00000;
};

// A pcapng file being written. Not thread-safe: call from the connection's I/O thread.
// Movable, not copyable.
class CaptureWriter {
 public:
  CaptureWriter();
  ~CaptureWriter();  // closes the file (errors are ignored; call close() to see them)
  CaptureWriter(CaptureWriter&&) noexcept;
  CaptureWriter& operator=(CaptureWriter&&) noexcept;

  // Creates or truncates path and writes the capture's start stamped now. Errors: io_error
  // (cannot create or write the file), invalid_argument (already open).
  void open(const std::filesystem::path& path, const CaptureWriterOptions& options = {});
  void open(const std::filesystem::path& path, const CaptureWriterOptions& options,
            std::error_code& ec);

  // Records bytes sent or received, then flushes. Errors: io_error, closed (not open).
  void record(CaptureDirection direction, std::span<const std::uint8_t> bytes,
              CaptureTime time = std::chrono::system_clock::now());
  void record(CaptureDirection direction, std::span<const std::uint8_t> bytes, CaptureTime time,
              std::error_code& ec);

  // Writes the connection's end and closes the file. Errors: io_error. No-op when not open.
  void close();
  void close(std::error_code& ec);

  bool is_open() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adbwire
