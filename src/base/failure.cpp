#include "base/failure.hpp"

#include "adbwire/error_detail.hpp"

namespace adbwire {
namespace {

std::string& thread_detail() noexcept {
  thread_local std::string detail;
  return detail;
}

}  // namespace

const std::string& last_error_detail() noexcept { return thread_detail(); }

namespace detail {

void report(Failure&& failure, std::error_code& error) noexcept {
  error = failure.code;
  // Swapping keeps the thread's buffer allocated: no allocation on the error_code path.
  std::string& kept = thread_detail();
  if (failure.code) {
    kept.swap(failure.detail);
  } else {
    kept.clear();
  }
}

Failure reported(std::error_code error) {
  Failure failure;
  if (error) failure.set(error, thread_detail());
  return failure;
}

}  // namespace detail
}  // namespace adbwire
