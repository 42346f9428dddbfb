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

namespace auth {
struct KeyFactory;
}

// A 2048-bit RSA private key as adb uses it. Move-only; thread safe for concurrent const use.
// A moved-from key, or the one a failed load(…, error) returns, is empty: its members throw
// Error(invalid_argument).
class PrivateKey {
 public:
  // Reads a PEM key (PKCS#8 "PRIVATE KEY" or traditional "RSA PRIVATE KEY"), unencrypted.
  // Errors: not_found (no file), permission_denied, io_error, parse_error (not a PEM RSA
  // 2048-bit key, or encrypted). The exception's message names the path.
  static PrivateKey load(const std::filesystem::path& pem_file);
  static PrivateKey load(const std::filesystem::path& pem_file, std::error_code& error);

  // A fresh 2048-bit key with e = 65537, as `adb keygen` makes. Throws Error(not_supported)
  // only if OpenSSL cannot make RSA keys (a broken provider configuration).
  static PrivateKey generate();

  // Writes `pem_file` (PKCS#8 PEM, mode 0600) and `pem_file.pub` (public_key_line(comment),
  // no trailing newline, mode 0666 less the umask — byte for byte what `adb keygen` writes),
  // each through a temporary file renamed into place; a failure leaves no temporary behind.
  // Errors: not_found (no such directory), permission_denied, io_error, invalid_argument
  // (comment holds a line break or NUL, which would break the device's adb_keys file).
  void save(const std::filesystem::path& pem_file, std::string_view comment) const;
  void save(const std::filesystem::path& pem_file, std::string_view comment,
            std::error_code& error) const;

  // Signs a 20-byte AUTH token exactly as AOSP's host: RSA PKCS#1 v1.5 with the SHA-1
  // DigestInfo prefix over the token itself (the token is not hashed). 256 bytes.
  // Throws Error(invalid_argument) unless the token is 20 bytes: AOSP's host refuses other
  // sizes too (adb_auth_sign), and a SHA-1 DigestInfo only holds 20.
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
  friend struct auth::KeyFactory;
  struct Impl;
  explicit PrivateKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A public key from an adbkey.pub line; what the device side (virtual device) checks.
// Move-only; thread safe for concurrent const use. Empty after a move or a failed
// parse(…, error): then verify_token() is false and the other members throw
// Error(invalid_argument).
class PublicKey {
 public:
  // Parses "<base64>[ comment]" as adbd does: the key is the text before the first space
  // or tab; trailing NULs and line breaks (the AUTH payload's NUL, a file's newline) are
  // ignored. Errors: parse_error (bad base64, wrong struct size, modulus words other than
  // 64, a modulus that is not odd and 2048-bit, an exponent that is even or 1). n0inv and
  // rr are not checked (AOSP's decoder ignores them too).
  static PublicKey parse(std::string_view line);
  static PublicKey parse(std::string_view line, std::error_code& error);

  // True when signature is this key's signature of token (scheme of sign_token()); false
  // for any other token or signature size.
  bool verify_token(std::span<const std::uint8_t> token,
                    std::span<const std::uint8_t> signature) const noexcept;

  // The 524-byte Android RSAPublicKey struct re-encoded from the key (n0inv and rr
  // recomputed) and its fingerprint, as PrivateKey's.
  std::vector<std::uint8_t> android_public_key() const;
  std::string fingerprint() const;

  PublicKey(PublicKey&&) noexcept;
  PublicKey& operator=(PublicKey&&) noexcept;
  ~PublicKey();

 private:
  friend struct auth::KeyFactory;
  struct Impl;
  explicit PublicKey(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Where keys come from; defaults follow adb (no process-global state: pass it along).
struct KeyOptions {
  // Directory holding adbkey; empty = $HOME/.android (home from getpwuid when HOME is
  // unset), exactly as adb: adb reads neither ANDROID_USER_HOME nor ANDROID_SDK_HOME, and
  // honouring them would pick a different key than adb, which the phone has not approved.
  std::filesystem::path android_dir;
  // Extra key files or directories; empty = split $ADB_VENDOR_KEYS on ':' (empty entries
  // skipped). A file is loaded whatever its name; a directory contributes its files whose
  // names end in ".adb_key" (not recursively), as adb does.
  std::vector<std::filesystem::path> vendor_keys;
  // Create adbkey(.pub) when absent, as adb does on first start; the directory is created
  // if missing (mode 0700 less the umask, not its parents; adb uses 0750).
  bool generate_if_missing = true;
};

// The host's keys: adbkey first (so front() is the key whose public half is offered when
// every signature is refused), then vendor keys in the order given (directory entries by
// name), each distinct key once. AOSP keeps the same set but tries it in the order of the
// keys' SHA-256 hashes; the device accepts any key it knows, so only the count of attempts
// can differ. Errors: not_found (no adbkey and generate_if_missing is false, no home
// directory, or the key directory's parent is missing), permission_denied/io_error (adbkey
// can't be read or created), parse_error (adbkey is damaged). Unreadable or malformed vendor keys
// are skipped, as adb does.
std::vector<PrivateKey> load_host_keys(const KeyOptions& options);
std::vector<PrivateKey> load_host_keys(const KeyOptions& options, std::error_code& error);

// The adbkey path that load_host_keys uses for these options; empty when android_dir is
// empty and no home directory is known.
std::filesystem::path default_key_path(const KeyOptions& options);

// "user@host" as current adb writes after the public key: $LOGNAME, else getlogin(), else
// the passwd name of the effective uid, else "unknown"; then $HOSTNAME, else gethostname(),
// else "unknown".
std::string default_key_comment();

}  // namespace adbwire
