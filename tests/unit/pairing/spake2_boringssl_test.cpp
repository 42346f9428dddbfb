// Our SPAKE2 (libsodium) against BoringSSL's own (SPAKE2_CTX, what adbd runs), from Debian's
// android-libboringssl. This program links BoringSSL's libcrypto and no OpenSSL 3 (their
// symbols clash), so it compiles src/pairing/spake2.cpp itself rather than linking the library.
//
// BoringSSL draws its private key with RAND_bytes through its PLT, so this program defines
// RAND_bytes: a test can hand both implementations the same 64 bytes and demand the same
// message and key byte for byte, not only keys that agree.
#include <gtest/gtest.h>
#include <openssl/curve25519.h>
#include <sodium.h>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "pairing/spake2.hpp"

namespace {

std::deque<std::uint8_t> fixed_random;  // served first by RAND_bytes, then the system's

}  // namespace

extern "C" int RAND_bytes(std::uint8_t* out, std::size_t length) {
  for (std::size_t i = 0; i < length; ++i) {
    if (fixed_random.empty()) {
      randombytes_buf(out + i, length - i);
      break;
    }
    out[i] = fixed_random.front();
    fixed_random.pop_front();
  }
  return 1;
}

namespace adbwire::pairing {
namespace {

const std::string kClient("adb pair client", sizeof("adb pair client"));
const std::string kServer("adb pair server", sizeof("adb pair server"));

std::span<const std::uint8_t> bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

struct Boring {
  explicit Boring(spake2_role_t role) {
    const std::string& mine = role == spake2_role_alice ? kClient : kServer;
    const std::string& theirs = role == spake2_role_alice ? kServer : kClient;
    ctx =
        SPAKE2_CTX_new(role, bytes(mine).data(), mine.size(), bytes(theirs).data(), theirs.size());
  }
  ~Boring() { SPAKE2_CTX_free(ctx); }
  std::vector<std::uint8_t> message(const std::string& password) {
    std::vector<std::uint8_t> out(SPAKE2_MAX_MSG_SIZE);
    std::size_t length = 0;
    EXPECT_EQ(SPAKE2_generate_msg(ctx, out.data(), &length, out.size(), bytes(password).data(),
                                  password.size()),
              1);
    out.resize(length);
    return out;
  }
  std::vector<std::uint8_t> key(const std::vector<std::uint8_t>& theirs) {
    std::vector<std::uint8_t> out(SPAKE2_MAX_KEY_SIZE);
    std::size_t length = 0;
    if (SPAKE2_process_msg(ctx, out.data(), &length, out.size(), theirs.data(), theirs.size()) !=
        1) {
      return {};
    }
    out.resize(length);
    return out;
  }
  SPAKE2_CTX* ctx;
};

std::array<std::uint8_t, 64> random_bytes() {
  std::array<std::uint8_t, 64> out{};
  randombytes_buf(out.data(), out.size());
  return out;
}

std::string random_code(std::size_t digits) {
  std::string code;
  for (std::size_t i = 0; i < digits; ++i) code += static_cast<char>('0' + randombytes_uniform(10));
  return code;
}

// adb's password: the code, then 64 bytes exported from the TLS session.
std::string adb_password(const std::string& code) {
  std::string password = code;
  std::array<std::uint8_t, 64> exported = random_bytes();
  password.append(reinterpret_cast<const char*>(exported.data()), exported.size());
  return password;
}

// Ours as `ours_role` against BoringSSL as the other party: the keys agree or differ as the
// passwords do.
void run(Spake2::Role ours_role, const std::string& our_password, const std::string& their_password,
         bool expect_match) {
  const bool alice = ours_role == Spake2::Role::alice;
  Spake2 ours(ours_role, alice ? kClient : kServer, alice ? kServer : kClient);
  Boring theirs(alice ? spake2_role_bob : spake2_role_alice);
  Spake2::Message our_message{};
  ASSERT_TRUE(ours.generate(bytes(our_password), our_message));
  std::vector<std::uint8_t> their_message = theirs.message(their_password);
  ASSERT_EQ(their_message.size(), Spake2::kMessageSize);
  auto our_key = ours.process(their_message);
  std::vector<std::uint8_t> their_key = theirs.key({our_message.begin(), our_message.end()});
  ASSERT_TRUE(our_key.has_value());
  ASSERT_EQ(their_key.size(), Spake2::kKeySize);
  EXPECT_EQ(std::equal(our_key->begin(), our_key->end(), their_key.begin()), expect_match);
}

TEST(Spake2BoringSsl, OursAsAliceAgreesWithBoringSslBobOnFixedAndRandomCodes) {
  run(Spake2::Role::alice, "123456", "123456", true);
  for (int i = 0; i < 50; ++i) {
    std::string password = adb_password(random_code(6));
    run(Spake2::Role::alice, password, password, true);
  }
}

TEST(Spake2BoringSsl, OursAsBobAgreesWithBoringSslAliceOnFixedAndRandomCodes) {
  run(Spake2::Role::bob, "123456", "123456", true);
  for (int i = 0; i < 50; ++i) {
    std::string password = adb_password(random_code(10));
    run(Spake2::Role::bob, password, password, true);
  }
}

TEST(Spake2BoringSsl, DifferentCodesGiveDifferentKeysBothWays) {
  for (int i = 0; i < 10; ++i) {
    std::string exported = adb_password("");
    run(Spake2::Role::alice, "123456" + exported, "123457" + exported, false);
    run(Spake2::Role::bob, "000000" + exported, "999999" + exported, false);
  }
}

// Same random draw, same password: BoringSSL and ours write the same message and derive the
// same key, for each role, so ours is BoringSSL's computation and not only a compatible one.
TEST(Spake2BoringSsl, SameRandomGivesByteIdenticalMessagesAndKeys) {
  for (int i = 0; i < 40; ++i) {
    const bool alice = i % 2 == 0;
    std::string password = adb_password(random_code(6));
    auto random = random_bytes();
    Spake2 ours(alice ? Spake2::Role::alice : Spake2::Role::bob, alice ? kClient : kServer,
                alice ? kServer : kClient);
    Boring boring(alice ? spake2_role_alice : spake2_role_bob);
    Spake2::Message our_message{};
    ASSERT_TRUE(ours.generate(bytes(password), random, our_message));
    fixed_random.assign(random.begin(), random.end());
    std::vector<std::uint8_t> boring_message = boring.message(password);
    EXPECT_TRUE(fixed_random.empty()) << "BoringSSL drew " << 64 - fixed_random.size();
    ASSERT_EQ(std::vector<std::uint8_t>(our_message.begin(), our_message.end()), boring_message);

    // One peer message both answer: a third party of the other role.
    Boring peer(alice ? spake2_role_bob : spake2_role_alice);
    std::vector<std::uint8_t> peer_message = peer.message(password);
    auto our_key = ours.process(peer_message);
    std::vector<std::uint8_t> boring_key = boring.key(peer_message);
    ASSERT_TRUE(our_key.has_value());
    EXPECT_EQ(std::vector<std::uint8_t>(our_key->begin(), our_key->end()), boring_key);
  }
}

// A corrupted message: BoringSSL refuses what is no curve point; whatever both accept gives
// keys that differ from the honest peer's.
TEST(Spake2BoringSsl, EveryFlippedBitOfTheMessageFailsOrGivesAnotherKey) {
  const std::string password = adb_password("123456");
  for (std::size_t bit = 0; bit < 8 * Spake2::kMessageSize; ++bit) {
    Spake2 ours(Spake2::Role::alice, kClient, kServer);
    Boring bob(spake2_role_bob);
    Spake2::Message message{};
    ASSERT_TRUE(ours.generate(bytes(password), message));
    std::vector<std::uint8_t> bob_message = bob.message(password);
    message[bit / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    auto our_key = ours.process(bob_message);
    std::vector<std::uint8_t> bob_key = bob.key({message.begin(), message.end()});
    ASSERT_TRUE(our_key.has_value());
    EXPECT_FALSE(!bob_key.empty() && std::equal(our_key->begin(), our_key->end(), bob_key.begin()))
        << "bit " << bit;
  }
}

}  // namespace
}  // namespace adbwire::pairing
