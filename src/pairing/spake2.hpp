// SPAKE2 over edwards25519 exactly as BoringSSL's SPAKE2_CTX computes it (crypto/curve25519/
// spake25519.cc), which is what adbd's pairing (pairing_auth.cpp) runs, built on libsodium's
// group operations. Internal to the pairing layer; it uses libsodium alone, so the test that
// runs it against BoringSSL's own implementation can compile it beside BoringSSL.
//
// BoringSSL's M and N are points with a small-order part (M of order 2, N of order 8), which
// libsodium's scalar multiplication refuses. Both parties multiply every peer point by a
// private scalar that is a multiple of 8, so only the points' prime-order parts (M_l, N_l)
// reach the key: w·M_l is what BoringSSL's masked w·M is once its password scalar is made a
// multiple of 8, and the peer's point is multiplied by 8 before the private scalar / 8, which
// clears any small-order part the peer's own mask carried (a peer without that fix).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace adbwire::pairing {

class Spake2 {
 public:
  enum class Role { alice, bob };  // adb: the host is alice, the device bob
  static constexpr std::size_t kMessageSize = 32;
  static constexpr std::size_t kKeySize = 64;
  static constexpr std::size_t kRandomSize = 64;  // what BoringSSL draws for its private key
  using Message = std::array<std::uint8_t, kMessageSize>;
  using Key = std::array<std::uint8_t, kKeySize>;

  // The names each side gives, in the order of its role: my_name, their_name. adb passes
  // sizeof of its string literals, so they end in a NUL.
  Spake2(Role role, std::string_view my_name, std::string_view their_name);
  ~Spake2();
  Spake2(const Spake2&) = delete;
  Spake2& operator=(const Spake2&) = delete;

  // Our message for password, with a private key from the system's random source. False only
  // when libsodium cannot start or a scalar came out zero (probability 2^-252).
  bool generate(std::span<const std::uint8_t> password, Message& out);
  // The same from 64 given bytes (BoringSSL's RAND_bytes draw), so tests can fix them.
  bool generate(std::span<const std::uint8_t> password,
                std::span<const std::uint8_t, kRandomSize> random, Message& out);

  // The shared key from the peer's message; after generate() only. nullopt when the message
  // is not a point of the curve, or unmasks to a point of small order (a hostile peer).
  // A wrong password is not detected here: both sides just get different keys.
  std::optional<Key> process(std::span<const std::uint8_t> their_message) const;

 private:
  Role role_;
  std::string my_name_;
  std::string their_name_;
  std::array<std::uint8_t, 32> private_scalar_{};   // r; BoringSSL's private key is 8r
  std::array<std::uint8_t, 32> password_scalar_{};  // SHA-512(password) mod l
  std::array<std::uint8_t, 64> password_hash_{};
  Message my_message_{};
  bool generated_ = false;
};

// The points in Ed25519 encoding, for the test that checks M_l and N_l against BoringSSL's M
// and N (each differs from its prime-order part by a point of order 2 or 8).
extern const std::array<std::uint8_t, 32> kSpake2M;
extern const std::array<std::uint8_t, 32> kSpake2N;
extern const std::array<std::uint8_t, 32> kSpake2MPrime;
extern const std::array<std::uint8_t, 32> kSpake2NPrime;

}  // namespace adbwire::pairing
