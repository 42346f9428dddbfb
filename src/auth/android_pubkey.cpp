#include "auth/android_pubkey.hpp"

#include <openssl/core_names.h>

#include <array>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::auth {
namespace {

constexpr std::size_t kWordsOffset = 0;
constexpr std::size_t kN0invOffset = 4;
constexpr std::size_t kModulusOffset = 8;
constexpr std::size_t kRrOffset = kModulusOffset + kModulusBytes;
constexpr std::size_t kExponentOffset = kRrOffset + kModulusBytes;
constexpr int kModulusBits = static_cast<int>(kModulusBytes * 8);

}  // namespace

std::vector<std::uint8_t> encode_android_public_key(const BIGNUM& n, const BIGNUM& e) {
  if (BN_num_bits(&n) != kModulusBits || !BN_is_odd(&n) || BN_num_bits(&e) > 32) return {};
  BnCtxPtr ctx(BN_CTX_new());
  BnPtr two_32(BN_new());
  BnPtr n0inv(BN_new());
  BnPtr r(BN_new());
  BnPtr rr(BN_new());
  if (!ctx || !two_32 || !n0inv || !r || !rr) return {};

  // n0inv = 2^32 - (n^-1 mod 2^32); the inverse exists because n is odd.
  if (!BN_set_bit(two_32.get(), 32) || !BN_mod_inverse(n0inv.get(), &n, two_32.get(), ctx.get()) ||
      !BN_sub(n0inv.get(), two_32.get(), n0inv.get())) {
    return {};
  }
  // rr = (2^2048)^2 mod n, the Montgomery constant mincrypt expects precomputed.
  if (!BN_set_bit(r.get(), kModulusBits) || !BN_mod_sqr(rr.get(), r.get(), &n, ctx.get())) {
    return {};
  }

  std::vector<std::uint8_t> out(kAndroidPublicKeySize);
  protocol::store_le32(out.data() + kWordsOffset, kModulusWords);
  protocol::store_le32(out.data() + kN0invOffset,
                       static_cast<std::uint32_t>(BN_get_word(n0inv.get())));
  if (BN_bn2lebinpad(&n, out.data() + kModulusOffset, kModulusBytes) < 0 ||
      BN_bn2lebinpad(rr.get(), out.data() + kRrOffset, kModulusBytes) < 0) {
    return {};
  }
  protocol::store_le32(out.data() + kExponentOffset, static_cast<std::uint32_t>(BN_get_word(&e)));
  return out;
}

std::vector<std::uint8_t> encode_android_public_key(const EVP_PKEY& key) {
  if (!EVP_PKEY_is_a(&key, "RSA")) return {};
  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  const bool ok = EVP_PKEY_get_bn_param(&key, OSSL_PKEY_PARAM_RSA_N, &n) == 1 &&
                  EVP_PKEY_get_bn_param(&key, OSSL_PKEY_PARAM_RSA_E, &e) == 1;
  const BnPtr n_owner(n);
  const BnPtr e_owner(e);
  if (!ok) {
    clear_openssl_errors();
    return {};
  }
  return encode_android_public_key(*n, *e);
}

std::optional<RsaPublicNumbers> decode_android_public_key(std::span<const std::uint8_t> bytes,
                                                          std::string& why) {
  if (bytes.size() != kAndroidPublicKeySize) {
    why = "the RSAPublicKey struct is " + std::to_string(bytes.size()) + " bytes, expected " +
          std::to_string(kAndroidPublicKeySize);
    return std::nullopt;
  }
  const std::uint32_t words = protocol::load_le32(bytes.data() + kWordsOffset);
  if (words != kModulusWords) {
    why = "the modulus is " + std::to_string(words) + " words long, expected " +
          std::to_string(kModulusWords) + " (a 2048-bit key)";
    return std::nullopt;
  }
  RsaPublicNumbers numbers{
      BnPtr(BN_lebin2bn(bytes.data() + kModulusOffset, kModulusBytes, nullptr)), BnPtr(BN_new())};
  if (!numbers.n || !numbers.e) {
    why = "out of memory";
    return std::nullopt;
  }
  if (BN_num_bits(numbers.n.get()) != kModulusBits || !BN_is_odd(numbers.n.get())) {
    why = "the modulus is not an odd 2048-bit number";
    return std::nullopt;
  }
  const std::uint32_t e = protocol::load_le32(bytes.data() + kExponentOffset);
  if (e < 3 || e % 2 == 0) {
    why = "the public exponent " + std::to_string(e) + " is not an odd number >= 3";
    return std::nullopt;
  }
  if (!BN_set_word(numbers.e.get(), e)) {
    why = "out of memory";
    return std::nullopt;
  }
  return numbers;
}

std::string android_fingerprint(std::span<const std::uint8_t> android_public_key) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_size = 0;
  if (EVP_Digest(android_public_key.data(), android_public_key.size(), digest.data(), &digest_size,
                 EVP_md5(), nullptr) != 1) {
    clear_openssl_errors();
    return {};
  }
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string text;
  for (unsigned int i = 0; i < digest_size; ++i) {
    if (i != 0) text += ':';
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 0xf];
  }
  return text;
}

}  // namespace adbwire::auth
