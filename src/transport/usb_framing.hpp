// ADB over USB bulk endpoints: the part that is not libusb. The runtime above sees a byte
// stream (transport.hpp); USB is message-framed, so
//   out: the byte stream is cut at ADB message boundaries, each header and each payload goes
//        as its own bulk transfer, and a transfer whose size is a non-zero multiple of
//        wMaxPacketSize is followed by a zero-length packet (adbd reads 16 KiB blocks and
//        only a short packet ends one: docs/dev/zero_length_packet.md);
//   in:  adbd never sends ZLPs, so each read asks for exactly what the current header or
//        payload still lacks, rounded up to wMaxPacketSize as AOSP's host does (a 24-byte
//        header is read with a 64/512-byte request, a 102-byte payload with 128 on a 64-byte
//        endpoint), and never for more: a payload that fills whole packets then ends its read.
// UsbLink adds the blocking transfer loops with halt recovery over a BulkPipe. Internal.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/protocol/constants.hpp"
#include "transport/usb_backend.hpp"

namespace adbwire::transport {

// Why a USB link ended, as the code the runtime receives (it reports the link as
// device_offline and quotes this message).
enum class UsbLinkError {
  vanished = 1,         // the device disappeared
  stalled = 2,          // an endpoint halted mid-transfer; the device was reset
  stall_persists = 3,   // clear-halt did not help; the device was reset
  overflow = 4,         // the device sent more than a transfer asked for
  transfer_failed = 5,  // another bus error
};
const std::error_category& usb_link_category() noexcept;
std::error_code make_error_code(UsbLinkError error) noexcept;

// AOSP's rule ((size & (max_packet_size - 1)) == 0 for a non-empty transfer), written for any
// packet size: true when a bulk OUT transfer of `size` bytes needs a ZLP after it.
bool needs_zero_length_packet(std::size_t size, std::uint16_t max_packet_size) noexcept;

// `size` rounded up to a whole number of packets (the IN request size).
std::size_t round_up_to_packets(std::size_t size, std::uint16_t max_packet_size) noexcept;

// True when the 24 bytes could start an ADB message: known command, magic == ~command,
// data_length ≤ max_payload.
bool plausible_usb_header(std::span<const std::uint8_t, protocol::kHeaderSize> header,
                          std::uint32_t max_payload = protocol::kMaxPayload) noexcept;

// Cuts the runtime's outgoing byte stream into bulk OUT transfers: one per header, one per
// non-empty payload. Bytes may arrive split or merged anywhere; an incomplete header or
// payload waits for the rest.
class OutboundSplitter {
 public:
  // Appends each completed transfer to out. protocol_error when a header is not plausible
  // (the runtime never writes one; this guards the framing), and then it stays failed.
  std::error_code feed(std::span<const std::uint8_t> bytes,
                       std::vector<std::vector<std::uint8_t>>& out);

  // True when nothing is held back (the stream is at a message boundary).
  bool at_boundary() const noexcept { return !in_payload_ && pending_.empty(); }

 private:
  std::vector<std::uint8_t> pending_;  // the header or payload being collected
  bool in_payload_ = false;
  std::size_t payload_size_ = 0;
  bool failed_ = false;
};

// Plans the bulk IN reads and checks what they return.
class InboundFramer {
 public:
  explicit InboundFramer(std::uint16_t max_packet_size) : max_packet_size_(max_packet_size) {}

  // Size of the next bulk IN request: what the current header or payload still lacks, in
  // whole packets.
  std::size_t next_read_size() const noexcept;

  // Takes what one bulk IN transfer returned (possibly partial: a timeout slice or a
  // short packet) and appends the bytes for the runtime to out. Until the first valid header,
  // transfers that do not start with one are dropped: a previous host may have left adbd
  // mid-message (AOSP's host skips such garbage too); a header cut by a timeout into whole
  // packets is completed by the next transfer. Once in sync a bad header is passed on
  // unchanged, so the session reports the protocol error with its detail, and the framer
  // stops planning reads (failed() turns true).
  void accept(std::span<const std::uint8_t> transfer, std::vector<std::uint8_t>& out);

  // True between messages (nothing of the current header or payload read yet).
  bool at_boundary() const noexcept { return header_filled_ == 0 && payload_left_ == 0; }
  bool failed() const noexcept { return failed_; }
  std::uint64_t discarded_bytes() const noexcept { return discarded_; }

 private:
  std::uint16_t max_packet_size_;
  bool synced_ = false;
  bool failed_ = false;
  std::uint8_t header_[protocol::kHeaderSize] = {};
  std::size_t header_filled_ = 0;
  std::size_t payload_left_ = 0;
  std::uint64_t discarded_ = 0;
};

// Blocking send and receive over a claimed pipe, with halt recovery. One thread writes and
// another reads at the same time; each call checks `stop` between timeout slices, so a closed
// link frees its threads within one slice.
//
// Recovery: a transfer that stalls before moving a byte is retried after clear-halt (up to
// kMaxStallRetries times); a stall after part of a transfer, or one that persists, cannot be
// resumed without corrupting the ADB stream, so the device is reset (adbd starts over and the
// next connect works) and the link fails with UsbLinkError::stalled / stall_persists.
class UsbLink {
 public:
  static constexpr int kMaxStallRetries = 2;
  static constexpr std::chrono::milliseconds kSlice{200};

  UsbLink(BulkPipe& pipe, std::string description);

  // Sends bytes of the runtime's stream: every complete header and payload as its own
  // transfer (plus ZLP). Returns an error code (operation_aborted when stop was set,
  // UsbLinkError otherwise, protocol_error for a bad header).
  std::error_code write(std::span<const std::uint8_t> bytes, const std::atomic<bool>& stop);

  // Reads until at least one byte for the runtime is ready and appends it to out.
  std::error_code read(std::vector<std::uint8_t>& out, const std::atomic<bool>& stop);

  // Where the link goes, for messages: "usb:SERIAL".
  const std::string& description() const noexcept { return description_; }

 private:
  std::error_code send_transfer(std::span<const std::uint8_t> transfer,
                                const std::atomic<bool>& stop);
  std::error_code recover(bool in, bool partial, int& retries);

  BulkPipe& pipe_;
  std::string description_;
  OutboundSplitter splitter_;
  InboundFramer framer_;
  std::vector<std::uint8_t> in_buffer_;
  std::vector<std::vector<std::uint8_t>> transfers_;
  std::error_code pending_read_error_;  // reported after the bytes read with it are delivered
  int in_stall_retries_ = 0;
};

}  // namespace adbwire::transport

template <>
struct std::is_error_code_enum<adbwire::transport::UsbLinkError> : std::true_type {};
