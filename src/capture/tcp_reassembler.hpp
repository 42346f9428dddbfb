// One direction of a TCP connection put back in order: retransmissions trimmed, segments that
// arrive early held until the gap before them fills (or is given up on).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

namespace adbwire::capture_detail {

class TcpReassembler {
 public:
  // Called with in-order bytes. gap_before: bytes between the previous delivery and these
  // were never captured, so a reader of the stream must resynchronise.
  using Deliver = std::function<void(bool gap_before, std::span<const std::uint8_t> bytes)>;

  // Early segments held beyond this many bytes make the reassembler give up on the gap.
  static constexpr std::size_t kMaxHeldBytes = 8u * 1024 * 1024;

  // payload_length is the segment's length per its IP header; payload may be shorter when the
  // capture's snap length cut it, and the missing tail counts as lost.
  void segment(std::uint32_t sequence, bool syn, std::uint32_t payload_length,
               std::span<const std::uint8_t> payload, const Deliver& deliver);

  // End of capture: delivers everything still held, each hole reported as a gap.
  void flush(const Deliver& deliver);

  std::uint64_t lost_bytes() const noexcept { return lost_; }

 private:
  void deliver_from(std::uint64_t offset, std::span<const std::uint8_t> bytes,
                    const Deliver& deliver);
  void drain(const Deliver& deliver);

  bool started_ = false;
  std::uint32_t next_sequence_ = 0;
  std::uint64_t next_offset_ = 0;  // stream offset of next_sequence_ (64-bit: no wrap)
  bool gap_pending_ = false;
  std::map<std::uint64_t, std::vector<std::uint8_t>> held_;
  std::size_t held_bytes_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace adbwire::capture_detail
