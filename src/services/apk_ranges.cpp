#include "services/apk_ranges.hpp"

#include <algorithm>
#include <cstring>

#include "adbwire/device.hpp"
#include "base/shell_quote.hpp"
#include "connection/collected_output.hpp"

namespace adbwire::detail {

DeviceFileRanges::DeviceFileRanges(Device& device, std::string path, std::uint64_t size,
                                   std::uint64_t budget, Deadline deadline)
    : device_(device), path_(std::move(path)), size_(size), budget_(budget), deadline_(deadline) {}

const DeviceFileRanges::Block* DeviceFileRanges::cached(std::uint64_t index) {
  const auto found = std::find_if(cache_.begin(), cache_.end(),
                                  [index](const Block& block) { return block.index == index; });
  if (found == cache_.end()) return nullptr;
  cache_.splice(cache_.begin(), cache_, found);
  return &cache_.front();
}

void DeviceFileRanges::keep(Block block) {
  cache_.push_front(std::move(block));
  if (cache_.size() > kRangeCacheBlocks) cache_.pop_back();
}

bool DeviceFileRanges::read(std::uint64_t offset, std::span<std::uint8_t> into, Failure& failure) {
  if (size_ > kMaxRangedFileBytes) {
    failure.set(errc::limit_exceeded, path_ + " is announced as " + std::to_string(size_) +
                                          " bytes, past the " +
                                          std::to_string(kMaxRangedFileBytes) + " read by ranges");
    return false;
  }
  if (offset > size_ || into.size() > size_ - offset) {
    failure.set(errc::invalid_argument, "a range past the end of " + path_ + " was asked for");
    return false;
  }
  // Reads that go on where the last one ended (a directory, an entry's data) fetch ever more
  // at once; a jump elsewhere starts again from one block.
  read_ahead_ = offset == next_offset_ ? std::min(read_ahead_ * 2, kMaxReadAheadBlocks) : 1;
  next_offset_ = offset + into.size();
  while (!into.empty()) {
    const std::uint64_t index = offset / kRangeBlock;
    if (const Block* block = cached(index)) {
      const std::uint64_t skip = offset - index * kRangeBlock;
      const std::size_t n = skip < block->bytes.size()
                                ? std::min<std::size_t>(into.size(), block->bytes.size() - skip)
                                : 0;
      if (n == 0) {
        failure.set(errc::parse_error, "a range of " + path_ + " came back shorter than its size");
        return false;
      }
      std::memcpy(into.data(), block->bytes.data() + skip, n);
      offset += n;
      into = into.subspan(n);
      continue;
    }
    const std::uint64_t needed = (offset + into.size() - 1) / kRangeBlock - index + 1;
    const std::uint64_t to_end = (size_ - 1) / kRangeBlock - index + 1;
    const std::uint64_t start = index * kRangeBlock;
    const std::uint64_t needed_bytes = std::min(size_, (index + needed) * kRangeBlock) - start;
    if (needed_bytes > budget_ - fetched_) {
      failure.set(errc::limit_exceeded, "reading its label needs more than the " +
                                            std::to_string(budget_) +
                                            " bytes of its APK adbwire reads by ranges");
      return false;
    }
    const std::uint64_t affordable = (budget_ - fetched_) / kRangeBlock;
    const std::uint64_t count =
        std::max(needed, std::min({std::max(needed, read_ahead_), to_end, affordable}));
    if (!fetch(index, count, offset, into, failure)) return false;
    const std::uint64_t end = std::min(size_, (index + count) * kRangeBlock);
    const std::size_t copied =
        static_cast<std::size_t>(std::min<std::uint64_t>(into.size(), end - offset));
    offset += copied;
    into = into.subspan(copied);
  }
  return true;
}

bool DeviceFileRanges::fetch(std::uint64_t first, std::uint64_t count, std::uint64_t offset,
                             std::span<std::uint8_t> into, Failure& failure) {
  const std::uint64_t begin = first * kRangeBlock;
  const std::uint64_t expected = std::min(size_, (first + count) * kRangeBlock) - begin;
  // stderr (dd's record counts, or the shell's "not found") is dropped: exec: would merge it
  // into the bytes.
  const std::string command = "dd if=" + shell_quote(path_) + " bs=" + std::to_string(kRangeBlock) +
                              " skip=" + std::to_string(first) + " count=" + std::to_string(count) +
                              " 2>/dev/null";
  ++calls_;
  Block block{first, {}};
  block.bytes.reserve(kRangeBlock);
  std::uint64_t got = 0;
  exec_into(
      device_, command,
      [&](std::span<const std::uint8_t> data) {
        if (failure) return;
        if (data.size() > expected - got) {
          failure.set(errc::parse_error, "the device answered " + what_ran(command) +
                                             " with more than the " + std::to_string(expected) +
                                             " bytes asked for");
          return;
        }
        while (!data.empty()) {
          const std::uint64_t at = begin + got;
          const std::size_t n = static_cast<std::size_t>(
              std::min<std::uint64_t>(data.size(), kRangeBlock - block.bytes.size()));
          // The part of the piece inside the range the caller asked for goes to it at once.
          const std::uint64_t from = std::max(at, offset);
          const std::uint64_t to = std::min(at + n, offset + into.size());
          if (from < to)
            std::memcpy(into.data() + (from - offset), data.data() + (from - at), to - from);
          block.bytes.insert(block.bytes.end(), data.begin(),
                             data.begin() + static_cast<std::ptrdiff_t>(n));
          if (block.bytes.size() == kRangeBlock) {
            const std::uint64_t next = block.index + 1;
            keep(std::move(block));
            block = Block{next, {}};
            block.bytes.reserve(kRangeBlock);
          }
          got += n;
          data = data.subspan(n);
        }
      },
      deadline_, failure);
  fetched_ += got;
  if (failure) return false;
  if (got == 0 && calls_ == 1) {
    refused_ = true;
    failure.set(errc::not_supported,
                "the device's dd answered " + what_ran(command) + " with nothing");
    return false;
  }
  if (got != expected) {
    failure.set(errc::parse_error, "the device answered " + what_ran(command) + " with " +
                                       std::to_string(got) + " bytes, not the " +
                                       std::to_string(expected) + " asked for");
    return false;
  }
  if (!block.bytes.empty()) keep(std::move(block));
  return true;
}

}  // namespace adbwire::detail
