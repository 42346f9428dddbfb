// An error code plus the sentence that explains it, carried between the layers of the
// library so the throwing API can report what was being done. Internal.
#pragma once

#include <string>
#include <system_error>
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

}  // namespace adbwire::detail
