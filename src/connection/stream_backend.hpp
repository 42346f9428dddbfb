// What a Stream talks to: one ADB stream of some backend (a stream of the multiplexed session,
// an adb server's socket, the CLI daemon's). Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"

namespace adbwire {

// Deadlines arrive resolved (never kDefaultDeadline). Thread safety as for Stream: one
// reader and one writer at a time, close() from anywhere.
class StreamBackend {
 public:
  virtual ~StreamBackend() = default;

  // Bytes copied (> 0), or 0 at end of stream, or 0 with failure set.
  virtual std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                                detail::Failure& failure) = 0;
  // Like read_some into a buffer of `max` bytes, the data landing in chunk's first n bytes
  // (n returned). A backend that holds received payloads hands one over without copying it:
  // chunk is then exactly that payload (it may exceed max). This one reads into chunk, grown to
  // max once and reused, so a reader pays neither a copy nor a clearing per call.
  virtual std::size_t read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max,
                                 Deadline deadline, detail::Failure& failure) {
    if (chunk.size() < max) chunk.resize(max);
    return read_some(std::span(chunk.data(), max), deadline, failure);
  }
  // Returns once all of data is queued for sending, or with failure set.
  virtual void write(std::span<const std::uint8_t> data, Deadline deadline,
                     detail::Failure& failure) = 0;
  virtual void close() noexcept = 0;
  virtual bool is_open() const noexcept = 0;
};

}  // namespace adbwire
