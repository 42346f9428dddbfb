// The RSAPublicKey struct, checked against arithmetic done here independently (different BIGNUM
// routes, and 32-bit integer math for n0inv).
#include "auth/android_pubkey.hpp"

#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include "adbwire/keys.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "unit/auth/auth_test_support.hpp"

namespace adbwire::auth {
namespace {

// Little-endian, zero-padded to 256 bytes, written by hand from the big-endian bytes.
std::vector<std::uint8_t> le256(const BIGNUM* value) {
  std::vector<std::uint8_t> big(static_cast<std::size_t>(BN_num_bytes(value)));
  BN_bn2bin(value, big.data());
  std::vector<std::uint8_t> little(256, 0);
  std::copy(big.rbegin(), big.rend(), little.begin());
  return little;
}

BnPtr key_param(EVP_PKEY* key, const char* name) {
  BIGNUM* value = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &value), 1);
  return BnPtr(value);
}

class AndroidPubkeyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { key_ = new test::TestPkey(test::openssl_generate_rsa(2048)); }
  static void TearDownTestSuite() {
    delete key_;
    key_ = nullptr;
  }
  static EVP_PKEY* key() { return key_->get(); }

 private:
  static test::TestPkey* key_;
};
test::TestPkey* AndroidPubkeyTest::key_ = nullptr;

TEST_F(AndroidPubkeyTest, LayoutMatchesAospStruct) {
  const auto encoded = encode_android_public_key(*key());
  ASSERT_EQ(encoded.size(), 524u);
  const BnPtr n = key_param(key(), OSSL_PKEY_PARAM_RSA_N);
  EXPECT_EQ(protocol::load_le32(encoded.data()), 64u);
  const auto n_le = le256(n.get());
  EXPECT_TRUE(std::equal(n_le.begin(), n_le.end(), encoded.begin() + 8));
  EXPECT_EQ(protocol::load_le32(encoded.data() + 520), 65537u);
}

TEST_F(AndroidPubkeyTest, N0invIsMinusInverseOfNModulo2To32) {
  const auto encoded = encode_android_public_key(*key());
  ASSERT_EQ(encoded.size(), 524u);
  const BnPtr n = key_param(key(), OSSL_PKEY_PARAM_RSA_N);
  const auto n_le = le256(n.get());
  const std::uint32_t n0 = protocol::load_le32(n_le.data());
  // Newton's iteration for the inverse of an odd number modulo 2^32, in plain integers.
  std::uint32_t inverse = n0;
  for (int i = 0; i < 5; ++i) inverse *= 2 - n0 * inverse;
  ASSERT_EQ(static_cast<std::uint32_t>(n0 * inverse), 1u);
  EXPECT_EQ(protocol::load_le32(encoded.data() + 4), static_cast<std::uint32_t>(0u - inverse));
  EXPECT_EQ(static_cast<std::uint32_t>(n0 * protocol::load_le32(encoded.data() + 4)), 0xffffffffu);
}

TEST_F(AndroidPubkeyTest, RrIsTwoTo4096ModN) {
  const auto encoded = encode_android_public_key(*key());
  ASSERT_EQ(encoded.size(), 524u);
  const BnPtr n = key_param(key(), OSSL_PKEY_PARAM_RSA_N);
  const BnCtxPtr ctx(BN_CTX_new());
  const BnPtr two(BN_new());
  const BnPtr exponent(BN_new());
  const BnPtr rr(BN_new());
  ASSERT_TRUE(BN_set_word(two.get(), 2) && BN_set_word(exponent.get(), 4096));
  ASSERT_TRUE(BN_mod_exp(rr.get(), two.get(), exponent.get(), n.get(), ctx.get()));
  const auto rr_le = le256(rr.get());
  EXPECT_TRUE(std::equal(rr_le.begin(), rr_le.end(), encoded.begin() + 264));
}

TEST_F(AndroidPubkeyTest, DecodeReadsBackNAndE) {
  const auto encoded = encode_android_public_key(*key());
  std::string why;
  const auto numbers = decode_android_public_key(encoded, why);
  ASSERT_TRUE(numbers) << why;
  const BnPtr n = key_param(key(), OSSL_PKEY_PARAM_RSA_N);
  EXPECT_EQ(BN_cmp(numbers->n.get(), n.get()), 0);
  EXPECT_EQ(BN_get_word(numbers->e.get()), 65537u);
}

TEST_F(AndroidPubkeyTest, DecodeRejectsMalformedStructs) {
  const auto good = encode_android_public_key(*key());
  std::string why;

  auto shorter = good;
  shorter.pop_back();
  EXPECT_FALSE(decode_android_public_key(shorter, why));
  EXPECT_NE(why.find("523 bytes"), std::string::npos) << why;

  auto longer = good;
  longer.push_back(0);
  EXPECT_FALSE(decode_android_public_key(longer, why));

  auto words = good;
  protocol::store_le32(words.data(), 63);
  EXPECT_FALSE(decode_android_public_key(words, why));
  EXPECT_NE(why.find("63 words"), std::string::npos) << why;

  auto even = good;
  even[8] &= 0xfe;
  EXPECT_FALSE(decode_android_public_key(even, why));

  auto short_modulus = good;
  short_modulus[8 + 255] = 0;
  EXPECT_FALSE(decode_android_public_key(short_modulus, why));

  auto even_e = good;
  protocol::store_le32(even_e.data() + 520, 65536);
  EXPECT_FALSE(decode_android_public_key(even_e, why));

  auto e_one = good;
  protocol::store_le32(e_one.data() + 520, 1);
  EXPECT_FALSE(decode_android_public_key(e_one, why));

  auto e_three = good;
  protocol::store_le32(e_three.data() + 520, 3);
  EXPECT_TRUE(decode_android_public_key(e_three, why)) << why;
}

TEST_F(AndroidPubkeyTest, EncodeRefusesKeysThatAreNot2048Bit) {
  const test::TestPkey small = test::openssl_generate_rsa(1024);
  EXPECT_TRUE(encode_android_public_key(*small).empty());
  const test::TestPkey ec = test::openssl_generate_ec();
  EXPECT_TRUE(encode_android_public_key(*ec).empty());
}

TEST_F(AndroidPubkeyTest, FingerprintIsColonSeparatedUpperCaseMd5) {
  // MD5("abc") from RFC 1321's test suite.
  const std::string abc = "abc";
  EXPECT_EQ(android_fingerprint({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()}),
            "90:01:50:98:3C:D2:4F:B0:D6:96:3F:7D:28:E1:7F:72");
  const std::string fingerprint = android_fingerprint(encode_android_public_key(*key()));
  ASSERT_EQ(fingerprint.size(), 16u * 3 - 1) << fingerprint;
  for (std::size_t i = 0; i < fingerprint.size(); ++i) {
    const char c = fingerprint[i];
    if (i % 3 == 2) {
      EXPECT_EQ(c, ':') << fingerprint;
    } else {
      EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')) << fingerprint;
    }
  }
}

}  // namespace
}  // namespace adbwire::auth
