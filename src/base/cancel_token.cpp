#include "base/cancel_token.hpp"

#include "adbwire/error.hpp"

namespace adbwire::detail {

bool CancelToken::cancelled() const {
  MutexLock lock(mutex_);
  return cancelled_;
}

void CancelToken::cancel() {
  {
    MutexLock lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

void CancelToken::check() const {
  if (cancelled()) throw Error(errc::cancelled, "the client cancelled the call");
}

void CancelToken::sleep(std::chrono::milliseconds pause) const {
  MutexLock lock(mutex_);
  if (changed_.wait_for(lock.native(), pause,
                        [this]() ADBWIRE_REQUIRES(mutex_) { return cancelled_; })) {
    throw Error(errc::cancelled, "the client cancelled the call");
  }
}

}  // namespace adbwire::detail
