// The virtual device's list of authorised host keys: an adb_keys-style file, one
// adbkey.pub line per key, as adbd keeps in /data/misc/adb/adb_keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace adbwire::vdevice {

class AuthorizedKeys {
 public:
  // file may be empty or absent (no keys). accept_new: offered keys are appended.
  AuthorizedKeys(std::filesystem::path file, bool accept_new);

  // True when signature signs token with one of the keys in the file (read now, so keys
  // appended meanwhile count). Unparsable lines are skipped.
  bool verify(std::span<const std::uint8_t> token, std::span<const std::uint8_t> signature) const;

  // A host offered its public key ("<base64> user@host", NUL or newline allowed at the end).
  // True when it is accepted: accept_new is set, the key parses and the line was appended.
  // Failures to append are logged to stderr.
  bool offer(std::string_view key_line) const;

 private:
  std::filesystem::path file_;
  bool accept_new_;
};

}  // namespace adbwire::vdevice
