// How the auth layer builds keys internally: every operation reports a Status (code plus a
// sentence naming the path), from which the public throwing and error_code overloads and
// load_host_keys() are made.
#pragma once

#include <openssl/types.h>

#include <filesystem>
#include <optional>
#include <string_view>

#include "adbwire/keys.hpp"
#include "auth/key_files.hpp"

namespace adbwire::auth {

struct KeyFactory {
  static std::optional<PrivateKey> load(const std::filesystem::path& pem_file, Status& status);
  static std::optional<PrivateKey> generate(Status& status);
  static bool save(const PrivateKey& key, const std::filesystem::path& pem_file,
                   std::string_view comment, Status& status);
  static std::optional<PublicKey> parse(std::string_view line, Status& status);
  // True when both keys have the same public half (adb loads each key once).
  static bool same_key(const PrivateKey& a, const PrivateKey& b);
  // The OpenSSL key inside, for TLS certificates; borrowed, valid while the key lives.
  // nullptr for an empty (moved-from) key.
  static EVP_PKEY* evp_key(const PrivateKey& key) noexcept;
  static EVP_PKEY* evp_key(const PublicKey& key) noexcept;
};

}  // namespace adbwire::auth
