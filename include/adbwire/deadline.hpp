// Deadlines: every blocking call in adbwire takes one (a point on the steady clock).
#pragma once

#include <chrono>

namespace adbwire {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// The default argument of calls that take a deadline: now + the owner's default timeout
// (ConnectOptions::command_timeout for a Device and the Streams it opens).
inline constexpr Deadline kDefaultDeadline{};

// Waits as long as it takes. Only for callers that end the wait themselves (close() from
// another thread), such as an interactive CLI.
inline constexpr Deadline kNoDeadline = Deadline::max();

// now + timeout, saturating at kNoDeadline.
inline Deadline deadline_after(std::chrono::milliseconds timeout) noexcept {
  const Deadline now = Clock::now();
  if (timeout >= std::chrono::duration_cast<std::chrono::milliseconds>(kNoDeadline - now)) {
    return kNoDeadline;
  }
  return now + timeout;
}

}  // namespace adbwire
