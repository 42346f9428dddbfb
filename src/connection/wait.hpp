// Condition-variable waits that honour kNoDeadline (no clock arithmetic near time_point::max).
#pragma once

#include <condition_variable>
#include <mutex>

#include "adbwire/deadline.hpp"

namespace adbwire::connection {

// True when pred holds; false when the deadline passed first.
template <class Predicate>
bool wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, Deadline deadline,
                Predicate pred) {
  if (deadline == kNoDeadline) {
    cv.wait(lock, pred);
    return true;
  }
  return cv.wait_until(lock, deadline, pred);
}

}  // namespace adbwire::connection
