// RSA keys for ADB authentication, compatible with adb's ~/.android/adbkey(.pub).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire {

// A 2048-bit RSA private key as adb uses it. Move-only; thread safe for concurrent const use.
class PrivateKey {
 public:
  // Reads a PEM key (PKCS#8 "PRIVATE KEY" or traditional "RSA PRIVATE KEY").
  // Errors: not_found (no file), permission_denied, parse_error (not an RSA PEM key).
  static PrivateKey load(const std::filesystem::path& pem_file);
  static PrivateKey load(const std::filesystem::path& pem_file, std::error_code& error);

  // A fresh 2048-bit key with e = 65537, as `adb keygen` makes.
  static PrivateKey generate();

  // Writes `pem_file` (PKCS#8 PEM, mode 0600) and `pem_file.pub` (public_key_line()),
  // each through a temporary file renamed into place. Errors: io_error, permission_denied.
  void save(const std::filesystem::path& pem_file, std::string_view comment) const;
  void save(const std::filesystem::path& pem_file, std::string_view comment,
            std::error_code& error) const;

  // Signs a 20-byte AUTH token exactly as AOSP's host: RSA PKCS#1 v1.5 with the SHA-1
  // DigestInfo prefix over the token itself (the token is not hashed). 256 bytes.
  std::vector<std::uint8_t> sign_token(std::span<const std::uint8_t> token) const;

  // "<base64 of Android RSAPublicKey> <comment>" — the adbkey.pub line, no newline.
  std::string public_key_line(std::string_view comment) const;

  // The 524-byte Android RSAPublicKey struct (modulus words, n0inv, n, rr, e; little-endian).
  std::vector<std::uint8_t> android_public_key() const;

  // Human-checkable fingerprint as the phone's dialog shows it (MD5 of the RSAPublicKey
  // struct, colon-separated upper-case hex).
  std::string fingerprint() const;

  PrivateKey(PrivateKey&&) noexcept;
  PrivateKey& operator=(PrivateKey&&) noexcept;
  ~PrivateKey();

 private:
  struct Impl;
  explicit PrivateKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A public key from an adbkey.pub line; what the device side (virtual device) checks.
class PublicKey {
 public:
  // Parses "<base64> [comment]". Errors: parse_error (bad base64, wrong struct size/layout).
  static PublicKey parse(std::string_view line);
  static PublicKey parse(std::string_view line, std::error_code& error);

  // True when signature is this key's signature of token (scheme of sign_token()).
  bool verify_token(std::span<const std::uint8_t> token,
                    std::span<const std::uint8_t> signature) const noexcept;

  // The 524-byte Android RSAPublicKey struct re-encoded from the key.
  std::vector<std::uint8_t> android_public_key() const;
  std::string fingerprint() const;

  PublicKey(PublicKey&&) noexcept;
  PublicKey& operator=(PublicKey&&) noexcept;
  ~PublicKey();

 private:
  struct Impl;
  explicit PublicKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Where keys come from; defaults follow adb (no process-global state: pass it along).
struct KeyOptions {
  // Directory holding adbkey; empty = $ANDROID_USER_HOME, else $HOME/.android.
  std::filesystem::path android_dir;
  // Extra key files or directories; empty = split $ADB_VENDOR_KEYS on ':'.
  std::vector<std::filesystem::path> vendor_keys;
  // Create adbkey(.pub) when absent, as adb does on first start.
  bool generate_if_missing = true;
};

// The host's keys in the order adb tries them: adbkey first, then vendor keys.
// Errors: io_error/permission_denied when adbkey can't be read or created; unreadable
// vendor keys are skipped (as adb does).
std::vector<PrivateKey> load_host_keys(const KeyOptions& options);
std::vector<PrivateKey> load_host_keys(const KeyOptions& options, std::error_code& error);

// The adbkey path that load_host_keys uses for these options.
std::filesystem::path default_key_path(const KeyOptions& options);

// "user@host" as adb writes after the public key.
std::string default_key_comment();

}  // namespace adbwire
