#include "vdevice/auth_keys.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

#include "adbwire/keys.hpp"

namespace adbwire::vdevice {

AuthorizedKeys::AuthorizedKeys(std::filesystem::path file, bool accept_new)
    : file_(std::move(file)), accept_new_(accept_new) {}

bool AuthorizedKeys::verify(std::span<const std::uint8_t> token,
                            std::span<const std::uint8_t> signature) const {
  if (file_.empty()) return false;
  std::ifstream in(file_);
  std::string line;
  while (std::getline(in, line)) {
    std::error_code error;
    PublicKey key = PublicKey::parse(line, error);
    if (!error && key.verify_token(token, signature)) return true;
  }
  return false;
}

bool AuthorizedKeys::offer(std::string_view key_line) const {
  while (!key_line.empty() &&
         (key_line.back() == '\0' || key_line.back() == '\n' || key_line.back() == '\r')) {
    key_line.remove_suffix(1);
  }
  if (!accept_new_ || file_.empty()) return false;
  std::error_code error;
  PublicKey::parse(key_line, error);
  if (error) {
    std::fprintf(stderr,
                 "adbwire vdevice: ignoring an unparsable public key offered by a host: %s\n",
                 error.message().c_str());
    return false;
  }
  std::ofstream out(file_, std::ios::app);
  out << key_line << '\n';
  out.flush();
  if (!out) {
    std::fprintf(stderr,
                 "adbwire vdevice: cannot append the host's key to %s: check the folder exists and "
                 "is writable\n",
                 file_.c_str());
    return false;
  }
  return true;
}

}  // namespace adbwire::vdevice
