// Lowercase hex of bytes, for comparing with known answers written as hex.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace adbwire::pairing::test {

inline std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

}  // namespace adbwire::pairing::test
