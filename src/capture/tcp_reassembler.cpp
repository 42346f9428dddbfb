#include "capture/tcp_reassembler.hpp"

namespace adbwire::capture_detail {

void TcpReassembler::segment(std::uint32_t sequence, bool syn, std::uint32_t payload_length,
                             std::span<const std::uint8_t> payload, const Deliver& deliver) {
  if (syn) {
    // A SYN starts the byte stream; data (rare) follows its sequence number.
    const bool restart = !started_;
    if (restart || sequence + 1 != next_sequence_) {
      started_ = true;
      gap_pending_ = gap_pending_ || !restart;
      next_sequence_ = sequence + 1;
      held_.clear();
      held_bytes_ = 0;
    }
    sequence += 1;
  }
  if (payload_length == 0) return;
  if (!started_) {
    started_ = true;  // capture began mid-connection
    next_sequence_ = sequence;
  }
  const auto delta = static_cast<std::int32_t>(sequence - next_sequence_);
  const std::int64_t signed_offset = static_cast<std::int64_t>(next_offset_) + delta;
  const std::int64_t signed_end = signed_offset + payload_length;
  if (signed_end <= static_cast<std::int64_t>(next_offset_)) return;  // a retransmission
  if (signed_offset <= static_cast<std::int64_t>(next_offset_)) {
    const auto skip =
        static_cast<std::size_t>(static_cast<std::int64_t>(next_offset_) - signed_offset);
    if (skip < payload.size()) deliver_from(next_offset_, payload.subspan(skip), deliver);
    const auto end = static_cast<std::uint64_t>(signed_end);
    if (end > next_offset_) {  // the capture's snap length cut this segment
      lost_ += end - next_offset_;
      next_sequence_ += static_cast<std::uint32_t>(end - next_offset_);
      next_offset_ = end;
      gap_pending_ = true;
    }
    drain(deliver);
    return;
  }
  const auto offset = static_cast<std::uint64_t>(signed_offset);
  if (payload.empty()) return;
  auto [it, inserted] = held_.try_emplace(offset);
  if (inserted || it->second.size() < payload.size()) {
    held_bytes_ += payload.size() - it->second.size();
    it->second.assign(payload.begin(), payload.end());
  }
  if (held_bytes_ > kMaxHeldBytes) {
    const std::uint64_t first = held_.begin()->first;
    lost_ += first - next_offset_;
    next_sequence_ += static_cast<std::uint32_t>(first - next_offset_);
    next_offset_ = first;
    gap_pending_ = true;
    drain(deliver);
  }
}

void TcpReassembler::deliver_from(std::uint64_t offset, std::span<const std::uint8_t> bytes,
                                  const Deliver& deliver) {
  if (offset + bytes.size() <= next_offset_) return;
  const auto skip = static_cast<std::size_t>(next_offset_ - offset);
  const auto fresh = bytes.subspan(skip);
  if (fresh.empty()) return;
  deliver(gap_pending_, fresh);
  gap_pending_ = false;
  next_offset_ += fresh.size();
  next_sequence_ += static_cast<std::uint32_t>(fresh.size());
}

void TcpReassembler::drain(const Deliver& deliver) {
  while (!held_.empty() && held_.begin()->first <= next_offset_) {
    auto node = held_.extract(held_.begin());
    held_bytes_ -= node.mapped().size();
    deliver_from(node.key(), node.mapped(), deliver);
  }
}

void TcpReassembler::flush(const Deliver& deliver) {
  while (!held_.empty()) {
    const std::uint64_t first = held_.begin()->first;
    if (first > next_offset_) {
      lost_ += first - next_offset_;
      next_sequence_ += static_cast<std::uint32_t>(first - next_offset_);
      next_offset_ = first;
      gap_pending_ = true;
    }
    drain(deliver);
  }
}

}  // namespace adbwire::capture_detail
