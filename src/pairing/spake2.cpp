#include "pairing/spake2.hpp"

#include <sodium.h>

#include <algorithm>

namespace adbwire::pairing {

namespace {

using Point = std::array<std::uint8_t, 32>;
using Scalar = std::array<std::uint8_t, 32>;

constexpr Point hex_point(const char (&hex)[65]) {
  Point out{};
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
  return out;
}

bool sodium_ready() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

// SHA-512 over each part prefixed by its length as 8 bytes little-endian (BoringSSL's
// update_with_length_prefix).
void hash_with_length(crypto_hash_sha512_state& state, std::span<const std::uint8_t> data) {
  std::array<std::uint8_t, 8> length{};
  std::uint64_t n = data.size();
  for (auto& byte : length) {
    byte = static_cast<std::uint8_t>(n & 0xff);
    n >>= 8;
  }
  crypto_hash_sha512_update(&state, length.data(), length.size());
  crypto_hash_sha512_update(&state, data.data(), data.size());
}

std::span<const std::uint8_t> bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

}  // namespace

const Point kSpake2M =
    hex_point("5ada7e4bf6ddd9adb6626d32131c6b5c51a1e347a3478f53cfcf441b88eed12e");
const Point kSpake2N =
    hex_point("10e3df0ae37d8e7a99b5fe74b44672103dbddcbd06af680d71329a11693bc778");
const Point kSpake2MPrime =
    hex_point("932581b409222652499d92cdece394a3ae5e1cb85cb870ac3030bbe477112ed1");
const Point kSpake2NPrime =
    hex_point("2d803ae3e80adc51cab57648e5becb4bef79f45fd130ca4f497ddb623b76ce84");

Spake2::Spake2(Role role, std::string_view my_name, std::string_view their_name)
    : role_(role), my_name_(my_name), their_name_(their_name) {}

Spake2::~Spake2() {
  sodium_memzero(private_scalar_.data(), private_scalar_.size());
  sodium_memzero(password_scalar_.data(), password_scalar_.size());
  sodium_memzero(password_hash_.data(), password_hash_.size());
}

bool Spake2::generate(std::span<const std::uint8_t> password, Message& out) {
  if (!sodium_ready()) return false;
  std::array<std::uint8_t, kRandomSize> random{};
  randombytes_buf(random.data(), random.size());
  bool ok = generate(password, random, out);
  sodium_memzero(random.data(), random.size());
  return ok;
}

bool Spake2::generate(std::span<const std::uint8_t> password,
                      std::span<const std::uint8_t, kRandomSize> random, Message& out) {
  if (!sodium_ready() || generated_) return false;
  // BoringSSL: private key x = 8 * (random mod l). x·B = (x mod l)·B since B has order l.
  crypto_core_ed25519_scalar_reduce(private_scalar_.data(), random.data());
  Scalar eight{8};
  Scalar x{};
  crypto_core_ed25519_scalar_mul(x.data(), private_scalar_.data(), eight.data());
  Point public_point{};
  if (crypto_scalarmult_ed25519_base_noclamp(public_point.data(), x.data()) != 0) return false;

  crypto_hash_sha512(password_hash_.data(), password.data(), password.size());
  crypto_core_ed25519_scalar_reduce(password_scalar_.data(), password_hash_.data());
  Point mask{};
  const Point& mine = role_ == Role::alice ? kSpake2MPrime : kSpake2NPrime;
  if (crypto_scalarmult_ed25519_noclamp(mask.data(), password_scalar_.data(), mine.data()) != 0 ||
      crypto_core_ed25519_add(my_message_.data(), public_point.data(), mask.data()) != 0) {
    return false;
  }
  out = my_message_;
  generated_ = true;
  return true;
}

std::optional<Spake2::Key> Spake2::process(std::span<const std::uint8_t> their_message) const {
  if (!generated_ || their_message.size() != kMessageSize) return std::nullopt;
  const Point& theirs = role_ == Role::alice ? kSpake2NPrime : kSpake2MPrime;
  Point their_mask{};
  Point unmasked{};
  if (crypto_scalarmult_ed25519_noclamp(their_mask.data(), password_scalar_.data(),
                                        theirs.data()) != 0 ||
      crypto_core_ed25519_sub(unmasked.data(), their_message.data(), their_mask.data()) != 0) {
    return std::nullopt;  // not a point of the curve
  }
  // x·Q = r·(8·Q): doubling three times clears a small-order part, so libsodium takes it.
  for (int i = 0; i < 3; ++i) {
    if (crypto_core_ed25519_add(unmasked.data(), unmasked.data(), unmasked.data()) != 0) {
      return std::nullopt;
    }
  }
  Point shared{};
  if (crypto_scalarmult_ed25519_noclamp(shared.data(), private_scalar_.data(), unmasked.data()) !=
      0) {
    return std::nullopt;  // the peer's point had no prime-order part
  }

  crypto_hash_sha512_state state;
  crypto_hash_sha512_init(&state);
  const bool alice = role_ == Role::alice;
  hash_with_length(state, bytes(alice ? my_name_ : their_name_));
  hash_with_length(state, bytes(alice ? their_name_ : my_name_));
  hash_with_length(state, alice ? std::span<const std::uint8_t>(my_message_) : their_message);
  hash_with_length(state, alice ? their_message : std::span<const std::uint8_t>(my_message_));
  hash_with_length(state, shared);
  hash_with_length(state, password_hash_);
  Key key{};
  crypto_hash_sha512_final(&state, key.data());
  sodium_memzero(shared.data(), shared.size());
  return key;
}

}  // namespace adbwire::pairing
