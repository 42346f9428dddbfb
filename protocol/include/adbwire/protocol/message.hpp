// The ADB transport message ("apacket"): 24-byte little-endian header plus payload, and an
// incremental reader that accepts bytes split or merged at any boundary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/protocol/constants.hpp"

namespace adbwire::protocol {

// One decoded message. data_length, data_check and magic are derived when encoding.
struct Message {
  std::uint32_t command = 0;
  std::uint32_t arg0 = 0;
  std::uint32_t arg1 = 0;
  std::vector<std::uint8_t> payload;
};

// The six header words exactly as on the wire.
struct Header {
  std::uint32_t command = 0;
  std::uint32_t arg0 = 0;
  std::uint32_t arg1 = 0;
  std::uint32_t data_length = 0;
  std::uint32_t data_check = 0;
  std::uint32_t magic = 0;
};

// The byte sum AOSP calls data_check (not a CRC).
std::uint32_t payload_checksum(std::span<const std::uint8_t> payload) noexcept;

// Writes the header little-endian into out[0..24).
void encode_header(const Header& header, std::span<std::uint8_t, kHeaderSize> out) noexcept;

// Reads a header; does not validate it.
Header decode_header(std::span<const std::uint8_t, kHeaderSize> in) noexcept;

// Appends header and payload to out. with_checksum: fill data_check (peers older than
// kVersionSkipChecksum, and every CNXN/AUTH before the peer's version is known).
void append_message(std::vector<std::uint8_t>& out, std::uint32_t command, std::uint32_t arg0,
                    std::uint32_t arg1, std::span<const std::uint8_t> payload, bool with_checksum);

// Incremental decoder. Holds at most one partial message (≤ max_payload + 24 bytes).
// After an error it stays failed: the byte stream cannot be resynchronised safely.
class MessageReader {
 public:
  explicit MessageReader(std::uint32_t max_payload = kMaxPayload) : max_payload_(max_payload) {}

  // Largest data_length accepted; a larger one is a protocol_error.
  void set_max_payload(std::uint32_t max_payload) noexcept { max_payload_ = max_payload; }
  std::uint32_t max_payload() const noexcept { return max_payload_; }

  // Verify data_check (only for peers older than kVersionSkipChecksum).
  void set_verify_checksum(bool verify) noexcept { verify_checksum_ = verify; }

  // Consumes all of bytes, appending each complete message to out. Errors (protocol_error):
  // bad magic, data_length over the limit, unknown command, checksum mismatch when verified.
  // Messages completed before the bad header are still appended.
  std::error_code feed(std::span<const std::uint8_t> bytes, std::vector<Message>& out);

  // Like feed(), but returns right after the first message it completes, so the caller can
  // change the limits before the next one is read (the session does after CNXN). Returns how
  // many bytes were used: all of them when no message completed; after an error the rest is
  // left unread and `error` is set.
  std::size_t feed_one(std::span<const std::uint8_t> bytes, std::vector<Message>& out,
                       std::error_code& error);

  // What was wrong, for the last error ("bad magic 0x… for command 0x…").
  const std::string& error_detail() const noexcept { return error_detail_; }

  // True when no partial message is buffered (a clean place for the stream to end).
  bool at_boundary() const noexcept { return header_filled_ == 0 && !have_header_; }

 private:
  std::uint32_t max_payload_;
  bool verify_checksum_ = false;
  bool failed_ = false;
  std::uint8_t header_bytes_[kHeaderSize] = {};
  std::size_t header_filled_ = 0;
  bool have_header_ = false;
  Header header_;
  Message current_;
  std::string error_detail_;

  std::error_code fail(std::string detail);
  std::error_code check_header();
};

}  // namespace adbwire::protocol
