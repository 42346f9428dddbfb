// The pairing cipher against values Python's `cryptography` (HKDF, AESGCM) gives for the same
// key material, and its counters and tag check.
#include "pairing/pairing_cipher.hpp"

#include <gtest/gtest.h>

#include <string>

#include "unit/pairing/hex.hpp"

namespace adbwire::pairing {
namespace {

using test::hex;

std::array<std::uint8_t, 64> key_material() {
  std::array<std::uint8_t, 64> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i);
  return out;
}

const std::string kPlain = "adb pairing";
std::span<const std::uint8_t> plain() {
  return {reinterpret_cast<const std::uint8_t*>(kPlain.data()), kPlain.size()};
}

TEST(PairingCipher, KnownAnswersWithTheCounterInTheNonce) {
  auto cipher = PairingCipher::create(key_material());
  ASSERT_TRUE(cipher);
  EXPECT_EQ(hex(cipher->encrypt(plain())),
            "29b539ee6d54407ac0846f1e2bc9138c1ed524c67ceefb293d48ec");
  EXPECT_EQ(hex(cipher->encrypt(plain())),
            "e83f9cd3412758dbdbb6e05c310036b69641fd0fa160b3b054054e");
}

TEST(PairingCipher, DecryptsInOrderAndRefusesATamperedTagOrAnotherKey) {
  auto sender = PairingCipher::create(key_material());
  auto receiver = PairingCipher::create(key_material());
  auto other = key_material();
  other[0] ^= 1;
  auto stranger = PairingCipher::create(other);
  ASSERT_TRUE(sender && receiver && stranger);
  std::vector<std::uint8_t> first = sender->encrypt(plain());
  std::vector<std::uint8_t> second = sender->encrypt(plain());
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(stranger->decrypt(first, out));
  EXPECT_FALSE(receiver->decrypt(second, out)) << "counter 0 cannot open message 1";
  std::vector<std::uint8_t> tampered = first;
  tampered.back() ^= 0x80;
  EXPECT_FALSE(receiver->decrypt(tampered, out));
  EXPECT_FALSE(receiver->decrypt(std::span<const std::uint8_t>(first.data(), 15), out));
  ASSERT_TRUE(receiver->decrypt(first, out));
  EXPECT_EQ(std::string(out.begin(), out.end()), kPlain);
  ASSERT_TRUE(receiver->decrypt(second, out));
  EXPECT_EQ(std::string(out.begin(), out.end()), kPlain);
}

}  // namespace
}  // namespace adbwire::pairing
