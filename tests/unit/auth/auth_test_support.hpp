// Helpers for the auth tests: private temporary directories, files, child processes with a
// chosen environment, and the test's own OpenSSL view of keys.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace adbwire::auth::test {

// A fresh directory under the system temp dir, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& contents);
// Names of the entries of a directory, sorted.
std::vector<std::string> list_dir(const std::filesystem::path& dir);
// st_mode & 07777 of a path.
unsigned file_mode(const std::filesystem::path& path);

struct ProcessResult {
  int exit_code = -1;
  std::string out;  // stdout
};

// Runs argv[0] (searched in PATH) with this process's environment plus `env_overrides`
// ("NAME=value" replaces NAME), stdin from /dev/null, stdout captured, stderr inherited.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env_overrides = {});

// The real AOSP adb host binary: an absolute path, or empty when it is not installed.
std::filesystem::path find_adb();
inline constexpr const char* kInstallAdb = "install Debian package adb (apt-get install adb)";

struct EvpPkeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using TestPkey = std::unique_ptr<EVP_PKEY, EvpPkeyDeleter>;

// The private key in a PEM file, read by OpenSSL directly (not by adbwire).
TestPkey openssl_read_private_key(const std::filesystem::path& pem_file);
// Fresh keys made by OpenSSL directly.
TestPkey openssl_generate_rsa(std::size_t bits);
TestPkey openssl_generate_ec();
// PEM text of a key: PKCS#8, traditional ("RSA PRIVATE KEY"), or PKCS#8 encrypted.
enum class PemKind { pkcs8, traditional, encrypted };
std::string openssl_pem(EVP_PKEY* key, PemKind kind);

// OpenSSL's own check of an AUTH signature: recovers the PKCS#1 v1.5 block with the public
// key and returns its payload, which must be SHA-1's DigestInfo prefix followed by the token.
std::vector<std::uint8_t> openssl_recover(EVP_PKEY* key, const std::vector<std::uint8_t>& sig);

std::vector<std::uint8_t> random_bytes(std::size_t count);

}  // namespace adbwire::auth::test
