#include "auth/openssl_util.hpp"

#include <openssl/err.h>

#include <array>

namespace adbwire::auth {

std::string take_openssl_error() {
  const unsigned long first = ERR_get_error();
  ERR_clear_error();
  if (first == 0) return "no detail from OpenSSL";
  std::array<char, 256> text{};
  ERR_error_string_n(first, text.data(), text.size());
  return text.data();
}

void clear_openssl_errors() noexcept { ERR_clear_error(); }

}  // namespace adbwire::auth
