// std::mutex with the capability annotation clang's thread-safety analysis needs (libstdc++'s has
// none), and its scoped lock. The lock also hands condition variables the std::unique_lock they
// wait on: a wait releases and retakes the mutex, which the analysis treats as held throughout.
// Internal.
#pragma once

#include <condition_variable>
#include <mutex>

#include "adbwire/deadline.hpp"
#include "base/thread_annotations.hpp"

namespace adbwire::detail {

class ADBWIRE_CAPABILITY("mutex") Mutex {
 public:
  void lock() ADBWIRE_ACQUIRE() { mutex_.lock(); }
  void unlock() ADBWIRE_RELEASE() { mutex_.unlock(); }
  bool try_lock() ADBWIRE_TRY_ACQUIRE(true) { return mutex_.try_lock(); }

  // For MutexLock's condition-variable waits only.
  std::mutex& native() noexcept { return mutex_; }

 private:
  std::mutex mutex_;
};

class ADBWIRE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ADBWIRE_ACQUIRE(mutex) : lock_(mutex.native()) {}
  ~MutexLock() ADBWIRE_RELEASE() {}

  // Lets go of the mutex for a while (a blocking call that must not hold it) and takes it back.
  void unlock() ADBWIRE_RELEASE() { lock_.unlock(); }
  void lock() ADBWIRE_ACQUIRE() { lock_.lock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // What std::condition_variable::wait takes. A predicate that reads guarded state is written
  // `[&]() ADBWIRE_REQUIRES(mutex) { … }`.
  std::unique_lock<std::mutex>& native() noexcept { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

// Waits on cv until pred holds (true) or the deadline passes (false); kNoDeadline waits without
// clock arithmetic near time_point::max.
template <class Predicate>
bool wait_until(std::condition_variable& cv, MutexLock& lock, Deadline deadline, Predicate pred) {
  if (deadline == kNoDeadline) {
    cv.wait(lock.native(), pred);
    return true;
  }
  return cv.wait_until(lock.native(), deadline, pred);
}

}  // namespace adbwire::detail
