// The ADB message stream of one direction, tolerant of what captures do to it: a capture that
// starts mid-message, lost bytes, or garbage. On any of these it drops bytes until the next
// valid header (known command, magic == ~command, plausible length) and carries on.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "adbwire/protocol/message.hpp"

namespace adbwire::capture_detail {

// True when the 24 bytes at header could start an ADB message.
bool plausible_header(std::span<const std::uint8_t, protocol::kHeaderSize> header) noexcept;

class AdbFramer {
 public:
  // Consumes bytes; appends every message completed.
  void feed(std::span<const std::uint8_t> bytes, std::vector<protocol::Message>& out);

  // Bytes before the next feed() were lost: drop any partial message and resynchronise.
  void gap();

  std::uint64_t resyncs() const noexcept { return resyncs_; }
  std::uint64_t skipped_bytes() const noexcept { return skipped_; }

 private:
  // Drops bytes up to the first plausible header; false (keeping ≤ 23 bytes) if none yet.
  bool find_header();
  void start_hunting();

  protocol::MessageReader reader_;
  bool hunting_ = false;
  // Bytes since the last message boundary. While synced, the reader holds the same bytes;
  // they are kept to find where a bad header began, so the search can restart right after it.
  std::vector<std::uint8_t> tail_;
  std::uint64_t resyncs_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace adbwire::capture_detail
