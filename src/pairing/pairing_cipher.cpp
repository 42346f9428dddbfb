#include "pairing/pairing_cipher.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <array>
#include <climits>
#include <string_view>

#include "auth/openssl_util.hpp"

namespace adbwire::pairing {
namespace {

constexpr std::string_view kInfo = "adb pairing_auth aes-128-gcm key";

using KdfPtr = std::unique_ptr<EVP_KDF, auth::OpenSslDeleter<EVP_KDF_free>>;
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, auth::OpenSslDeleter<EVP_KDF_CTX_free>>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, auth::OpenSslDeleter<EVP_CIPHER_CTX_free>>;

std::array<std::uint8_t, 12> nonce(std::uint64_t counter) {
  std::array<std::uint8_t, 12> out{};
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(counter >> (8 * i));
  return out;
}

}  // namespace

std::optional<PairingCipher> PairingCipher::create(std::span<const std::uint8_t> spake2_key) {
  KdfPtr kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  KdfCtxPtr ctx(kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr);
  if (!ctx) return std::nullopt;
  char digest[] = "SHA256";
  std::array<OSSL_PARAM, 4> params = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(
          OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(spake2_key.data()), spake2_key.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(kInfo.data()),
                                        kInfo.size()),
      OSSL_PARAM_construct_end()};
  PairingCipher cipher;
  if (EVP_KDF_derive(ctx.get(), cipher.key_.data(), cipher.key_.size(), params.data()) != 1) {
    return std::nullopt;
  }
  return cipher;
}

std::vector<std::uint8_t> PairingCipher::encrypt(std::span<const std::uint8_t> plain) {
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  const auto iv = nonce(encrypt_counter_);
  std::vector<std::uint8_t> out(plain.size() + kTagSize);
  int length = 0;
  int final_length = 0;
  if (!ctx || plain.size() > INT_MAX ||
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, key_.data(), iv.data()) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out.data(), &length, plain.data(),
                        static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out.data() + length, &final_length) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, out.data() + plain.size()) !=
          1) {
    return {};
  }
  ++encrypt_counter_;
  return out;
}

bool PairingCipher::decrypt(std::span<const std::uint8_t> sealed,
                            std::vector<std::uint8_t>& plain) {
  if (sealed.size() < kTagSize || sealed.size() > INT_MAX) return false;
  const std::size_t size = sealed.size() - kTagSize;
  CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  const auto iv = nonce(decrypt_counter_);
  std::vector<std::uint8_t> out(size);
  std::array<std::uint8_t, kTagSize> tag{};
  std::copy(sealed.begin() + static_cast<std::ptrdiff_t>(size), sealed.end(), tag.begin());
  int length = 0;
  int final_length = 0;
  if (!ctx ||
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_128_gcm(), nullptr, key_.data(), iv.data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), out.data(), &length, sealed.data(), static_cast<int>(size)) !=
          1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), out.data() + length, &final_length) != 1) {
    return false;
  }
  ++decrypt_counter_;
  plain = std::move(out);
  return true;
}

}  // namespace adbwire::pairing
