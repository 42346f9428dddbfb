// The cipher both pairing peers derive from the SPAKE2 key, as AOSP's pairing_auth/
// aes_128_gcm.cpp: AES-128-GCM, key = HKDF-SHA256(SPAKE2 key, no salt, info "adb pairing_auth
// aes-128-gcm key" without its NUL, 16 bytes), nonce = 12 bytes whose first 8 are a message
// counter (little-endian, one per direction, from 0), 16-byte tag appended, no associated data.
// Internal to the pairing layer. Not thread safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace adbwire::pairing {

class PairingCipher {
 public:
  static constexpr std::size_t kTagSize = 16;

  // nullopt when OpenSSL cannot derive the key (a broken provider configuration).
  static std::optional<PairingCipher> create(std::span<const std::uint8_t> spake2_key);

  // Ciphertext then tag; empty only when OpenSSL fails.
  std::vector<std::uint8_t> encrypt(std::span<const std::uint8_t> plain);
  // False when the tag does not match (a peer with another pairing code) or the input is
  // shorter than a tag; the decrypt counter moves only on success, as AOSP's.
  bool decrypt(std::span<const std::uint8_t> sealed, std::vector<std::uint8_t>& plain);

 private:
  PairingCipher() = default;
  std::array<std::uint8_t, 16> key_{};
  std::uint64_t encrypt_counter_ = 0;
  std::uint64_t decrypt_counter_ = 0;
};

}  // namespace adbwire::pairing
