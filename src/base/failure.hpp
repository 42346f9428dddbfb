// An error code plus the sentence that explains it, carried between the layers of the library,
// and the one place that turns it into either half of a public API pair. Internal.
//
// Each public operation is written once, against a Failure out-parameter; its two overloads are
// then
//   T op(args)                          { return detail::or_throw([&](Failure& f) { … }); }
//   T op(args, std::error_code& error)  { return detail::or_code(error, [&](Failure& f) { … }); }
// so the throwing one throws Error(code, detail) and the other sets the code and leaves the
// detail in last_error_detail(); nothing throws on the error_code path.
#pragma once

#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

#include "adbwire/error.hpp"

namespace adbwire::detail {

struct Failure {
  std::error_code code;
  std::string detail;

  explicit operator bool() const noexcept { return static_cast<bool>(code); }

  void set(std::error_code new_code, std::string new_detail) {
    code = new_code;
    detail = std::move(new_detail);
  }
  void set(errc new_code, std::string new_detail) {
    set(make_error_code(new_code), std::move(new_detail));
  }

  // For the throwing half of an API pair.
  void throw_if_failed() const {
    if (code) throw Error(code, detail);
  }
};

// Hands failure to an error_code caller: the code, and the detail kept for last_error_detail().
void report(Failure&& failure, std::error_code& error) noexcept;

// The failure an error_code overload just reported: its code and last_error_detail(). Library
// code calls the error_code overloads of the layers below it and takes their failure this way,
// so an expected failure never costs an exception.
Failure reported(std::error_code error);

// Runs op(Failure&) for the throwing overload: its result, or Error(code, detail).
template <typename Op>
auto or_throw(Op&& op) {
  Failure failure;
  if constexpr (std::is_void_v<decltype(op(failure))>) {
    op(failure);
    failure.throw_if_failed();
  } else {
    auto result = op(failure);
    failure.throw_if_failed();
    return result;
  }
}

// Runs op(Failure&) for the error_code overload: its result (whatever op returns on failure),
// error set, the detail left in last_error_detail().
template <typename Op>
auto or_code(std::error_code& error, Op&& op) {
  Failure failure;
  if constexpr (std::is_void_v<decltype(op(failure))>) {
    op(failure);
    report(std::move(failure), error);
  } else {
    auto result = op(failure);
    report(std::move(failure), error);
    return result;
  }
}

}  // namespace adbwire::detail
