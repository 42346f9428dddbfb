// Cancellation of one piece of work that another thread may ask to stop (an MCP client's
// notifications/cancelled, a CLI client that went away). Internal.
#pragma once

#include <chrono>
#include <condition_variable>

#include "base/mutex.hpp"

namespace adbwire::detail {

// Thread safe.
class CancelToken {
 public:
  bool cancelled() const;
  void cancel();
  // Throws adbwire::Error(errc::cancelled) once cancelled; long work calls it between steps.
  void check() const;
  // Sleeps for pause, returning early by throwing as check() does when cancelled meanwhile.
  void sleep(std::chrono::milliseconds pause) const;

 private:
  mutable Mutex mutex_;
  mutable std::condition_variable changed_;
  bool cancelled_ ADBWIRE_GUARDED_BY(mutex_) = false;
};

}  // namespace adbwire::detail
