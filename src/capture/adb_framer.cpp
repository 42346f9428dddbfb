#include "capture/adb_framer.hpp"

#include <algorithm>
#include <array>

namespace adbwire::capture_detail {
namespace {

constexpr std::array kKnownCommands = {
    protocol::kCommandSync, protocol::kCommandCnxn, protocol::kCommandAuth, protocol::kCommandOpen,
    protocol::kCommandOkay, protocol::kCommandClse, protocol::kCommandWrte, protocol::kCommandStls,
};

}  // namespace

bool plausible_header(std::span<const std::uint8_t, protocol::kHeaderSize> header) noexcept {
  const protocol::Header h = protocol::decode_header(header);
  return h.magic == (h.command ^ 0xffffffffu) && h.data_length <= protocol::kMaxPayload &&
         std::find(kKnownCommands.begin(), kKnownCommands.end(), h.command) != kKnownCommands.end();
}

void AdbFramer::feed(std::span<const std::uint8_t> bytes, std::vector<protocol::Message>& out) {
  tail_.insert(tail_.end(), bytes.begin(), bytes.end());
  std::size_t unfed = tail_.size() - bytes.size();  // the reader has seen tail_[0, unfed)
  for (;;) {
    if (hunting_) {
      if (!find_header()) return;
      hunting_ = false;
      reader_ = protocol::MessageReader{};
      unfed = 0;
    }
    const std::size_t before = out.size();
    const std::error_code ec = reader_.feed(std::span(tail_).subspan(unfed), out);
    std::size_t consumed = 0;
    for (std::size_t i = before; i < out.size(); ++i)
      consumed += protocol::kHeaderSize + out[i].payload.size();
    if (!ec) {
      tail_.erase(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(consumed));
      return;
    }
    // The header at tail_[consumed] was rejected: search again from the byte after it.
    tail_.erase(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(consumed + 1));
    ++skipped_;
    start_hunting();
  }
}

void AdbFramer::gap() {
  skipped_ += tail_.size();
  tail_.clear();
  start_hunting();
}

void AdbFramer::start_hunting() {
  if (!hunting_) ++resyncs_;
  hunting_ = true;
}

bool AdbFramer::find_header() {
  for (std::size_t i = 0; i + protocol::kHeaderSize <= tail_.size(); ++i) {
    if (plausible_header(std::span<const std::uint8_t, protocol::kHeaderSize>(
            tail_.data() + i, protocol::kHeaderSize))) {
      skipped_ += i;
      tail_.erase(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
  }
  // Keep what could still be the start of a header for the next feed.
  const std::size_t keep = std::min(tail_.size(), protocol::kHeaderSize - 1);
  skipped_ += tail_.size() - keep;
  tail_.erase(tail_.begin(), tail_.end() - static_cast<std::ptrdiff_t>(keep));
  return false;
}

}  // namespace adbwire::capture_detail
