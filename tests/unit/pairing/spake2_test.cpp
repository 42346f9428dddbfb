// SPAKE2 on libsodium: known answers BoringSSL gave for fixed random draws (tests/unit/pairing/
// spake2_boringssl_test.cpp checks ours against BoringSSL live), and the prime-order parts of
// BoringSSL's M and N that the implementation uses in their place.
#include "pairing/spake2.hpp"

#include <gtest/gtest.h>
#include <sodium.h>

#include <string>

#include "unit/pairing/hex.hpp"

namespace adbwire::pairing {
namespace {

const std::string kClient("adb pair client", 16);
const std::string kServer("adb pair server", 16);

using test::hex;

std::array<std::uint8_t, 32> times_eight(std::array<std::uint8_t, 32> point) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(crypto_core_ed25519_add(point.data(), point.data(), point.data()), 0);
  }
  return point;
}

TEST(Spake2, PrimeOrderPartsOfMAndN) {
  ASSERT_GE(sodium_init(), 0);
  const std::array<std::uint8_t, 32> identity{1};
  for (const auto& [full, prime] :
       {std::pair{kSpake2M, kSpake2MPrime}, std::pair{kSpake2N, kSpake2NPrime}}) {
    // BoringSSL's point has a small-order part: libsodium refuses it as it stands.
    EXPECT_EQ(crypto_core_ed25519_is_valid_point(full.data()), 0);
    // Ours is in the prime-order subgroup...
    EXPECT_EQ(crypto_core_ed25519_is_valid_point(prime.data()), 1);
    // ...and differs from BoringSSL's by a point of order dividing 8, not the identity: so it
    // is the unique prime-order part.
    std::array<std::uint8_t, 32> torsion{};
    ASSERT_EQ(crypto_core_ed25519_sub(torsion.data(), full.data(), prime.data()), 0);
    EXPECT_NE(torsion, identity);
    EXPECT_EQ(times_eight(torsion), identity);
  }
}

// Alice with random bytes 3, 10, 17, … (i * 7 + 3) and bob with the next 64, password
// "123456" then 64 bytes a0 a1 … af a0 …: what BoringSSL 13.0.0+r24 (Debian's
// android-libboringssl) computed for the same draws.
TEST(Spake2, KnownAnswerFromBoringSsl) {
  std::array<std::uint8_t, 128> random{};
  for (std::size_t i = 0; i < random.size(); ++i) random[i] = static_cast<std::uint8_t>(i * 7 + 3);
  std::string password = "123456";
  for (int i = 0; i < 64; ++i) password += static_cast<char>(0xa0 + i % 16);
  const std::span<const std::uint8_t> secret(reinterpret_cast<const std::uint8_t*>(password.data()),
                                             password.size());

  Spake2 alice(Spake2::Role::alice, kClient, kServer);
  Spake2 bob(Spake2::Role::bob, kServer, kClient);
  Spake2::Message alice_message{};
  Spake2::Message bob_message{};
  ASSERT_TRUE(
      alice.generate(secret, std::span<const std::uint8_t, 64>(random.data(), 64), alice_message));
  ASSERT_TRUE(
      bob.generate(secret, std::span<const std::uint8_t, 64>(random.data() + 64, 64), bob_message));
  EXPECT_EQ(hex(alice_message), "f59875a15e9781c374deef1c5e443a98dec59a5a34fc3209478cd0cd7bde41fd");
  EXPECT_EQ(hex(bob_message), "2345dc42188e69048741f8323e5271065adc35edfbecd7c922ac3fe16d302ad0");
  const char* key =
      "ae864d430b3d3cbe408c3f4bec348175ad95fc592dbdd74e7efa3f22c72ac95f"
      "cf03c1b1d2aba2565911cc836f5d573a3763317e4bb96f38505ed0d523adce62";
  auto alice_key = alice.process(bob_message);
  auto bob_key = bob.process(alice_message);
  ASSERT_TRUE(alice_key && bob_key);
  EXPECT_EQ(hex(*alice_key), key);
  EXPECT_EQ(hex(*bob_key), key);
}

TEST(Spake2, RefusesMessagesThatAreNoPointOrOnlyTorsion) {
  const std::string password = "000000";
  const std::span<const std::uint8_t> secret(reinterpret_cast<const std::uint8_t*>(password.data()),
                                             password.size());
  Spake2 alice(Spake2::Role::alice, kClient, kServer);
  Spake2::Message message{};
  ASSERT_TRUE(alice.generate(secret, message));
  // y = 2 is on no point of the curve.
  std::array<std::uint8_t, 32> not_a_point{2};
  EXPECT_FALSE(alice.process(not_a_point));
  // w·N_l plus a point of order 2 unmasks to that point, which times 8 is nothing.
  std::array<std::uint8_t, 32> mask{};
  std::array<std::uint8_t, 32> order_two{};
  order_two[0] = 0xec;
  for (int i = 1; i < 31; ++i) order_two[i] = 0xff;
  order_two[31] = 0x7f;
  std::array<std::uint8_t, 64> hash{};
  crypto_hash_sha512(hash.data(), secret.data(), secret.size());
  std::array<std::uint8_t, 32> w{};
  crypto_core_ed25519_scalar_reduce(w.data(), hash.data());
  ASSERT_EQ(crypto_scalarmult_ed25519_noclamp(mask.data(), w.data(), kSpake2NPrime.data()), 0);
  std::array<std::uint8_t, 32> hostile{};
  ASSERT_EQ(crypto_core_ed25519_add(hostile.data(), mask.data(), order_two.data()), 0);
  EXPECT_FALSE(alice.process(hostile));
  EXPECT_FALSE(alice.process(std::span<const std::uint8_t>(message.data(), 31)));
}

TEST(Spake2, GeneratesOnceAndProcessesOnlyAfterGenerating) {
  Spake2 alice(Spake2::Role::alice, kClient, kServer);
  Spake2::Message message{};
  EXPECT_FALSE(alice.process(message));
  const std::uint8_t code[] = {'1'};
  ASSERT_TRUE(alice.generate(code, message));
  EXPECT_FALSE(alice.generate(code, message));
}

}  // namespace
}  // namespace adbwire::pairing
