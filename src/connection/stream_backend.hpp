// What a Stream talks to: one ADB stream of some backend (a stream of the multiplexed session,
// an adb server's socket, the CLI daemon's). Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

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
  // Returns once all of data is queued for sending, or with failure set.
  virtual void write(std::span<const std::uint8_t> data, Deadline deadline,
                     detail::Failure& failure) = 0;
  virtual void close() noexcept = 0;
  virtual bool is_open() const noexcept = 0;
};

}  // namespace adbwire
