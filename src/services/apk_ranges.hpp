// Ranges of a file on the device, read through `dd` over exec: sync reads only whole files, so
// the few parts of an APK a label needs (services/apk_label.hpp) are asked for as blocks of
// kRangeBlock bytes, `dd if=FILE bs=65536 skip=K count=N`, which every Android has (NetBSD's dd
// in toolbox up to Android 8, toybox's after; both seek to the skipped offset). A small cache
// of blocks and a read-ahead that doubles while reads go forward keep the calls few. The device
// is untrusted: the bytes fetched per file are bounded, every answer must be exactly the size
// asked for, every call has the deadline given. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"

namespace adbwire {
class Device;
}

namespace adbwire::detail {

// The unit of every range asked for, and of the cache.
inline constexpr std::uint64_t kRangeBlock = 64 * 1024;
// Blocks the cache keeps (4 MiB), and the longest read-ahead in blocks (4 MiB).
inline constexpr std::size_t kRangeCacheBlocks = 64;
inline constexpr std::uint64_t kMaxReadAheadBlocks = 64;
// A file announced larger (1 TiB) is refused: its offsets would pass what libzip's and the
// block arithmetic's 64-bit signed offsets hold.
inline constexpr std::uint64_t kMaxRangedFileBytes = 1ull << 40;

class DeviceFileRanges {
 public:
  // `path` as the device names it (quoted here for its shell), `size` as its sync stat said;
  // at most `budget` bytes are fetched over the object's life. device must outlive this.
  DeviceFileRanges(Device& device, std::string path, std::uint64_t size, std::uint64_t budget,
                   Deadline deadline);

  // Fills `into` with the bytes at offset (offset + into.size() <= size). Errors: limit_exceeded
  // (the budget would be passed, or size is past kMaxRangedFileBytes), parse_error (an answer
  // longer or shorter than the range), not_supported (the first range came back empty: the device's
  // dd is missing or refuses; see refused()), and those of Device::exec (timeout, device_offline,
  // closed).
  bool read(std::uint64_t offset, std::span<std::uint8_t> into, Failure& failure);

  // True when the device answered the first range with nothing: it cannot read ranges.
  bool refused() const noexcept { return refused_; }
  // Bytes the device sent and exec calls made, for notes and measurements.
  std::uint64_t fetched() const noexcept { return fetched_; }
  std::size_t calls() const noexcept { return calls_; }

 private:
  struct Block {
    std::uint64_t index;
    std::vector<std::uint8_t> bytes;
  };
  const Block* cached(std::uint64_t index);
  bool fetch(std::uint64_t first, std::uint64_t count, std::uint64_t offset,
             std::span<std::uint8_t> into, Failure& failure);
  void keep(Block block);

  Device& device_;
  std::string path_;
  std::uint64_t size_;
  std::uint64_t budget_;
  Deadline deadline_;
  std::list<Block> cache_;  // most recently used first
  std::uint64_t next_offset_ = 0;
  std::uint64_t read_ahead_ = 1;
  std::uint64_t fetched_ = 0;
  std::size_t calls_ = 0;
  bool refused_ = false;
};

}  // namespace adbwire::detail
