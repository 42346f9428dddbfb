// Android's RSAPublicKey struct (the binary payload of adbkey.pub; its base64 text is
// base/base64.hpp's).
//
// Layout, all little-endian (AOSP libcrypto_utils android_pubkey): modulus size in 32-bit
// words (64), n0inv = -1/n mod 2^32, n (256 bytes), rr = (2^2048)^2 mod n (256 bytes), e.
// n0inv and rr only serve old mincrypt-based adbd, but devices running it still exist, so
// they are always encoded exactly.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "auth/openssl_util.hpp"

namespace adbwire::auth {

inline constexpr std::size_t kModulusBytes = 256;
inline constexpr std::uint32_t kModulusWords = kModulusBytes / 4;
inline constexpr std::size_t kAndroidPublicKeySize = 3 * 4 + 2 * kModulusBytes;
inline constexpr std::size_t kTokenSize = 20;

// Encodes an RSA public key as the 524-byte struct. Empty when n is not a 2048-bit modulus
// or e does not fit 32 bits (adb only has 2048-bit keys) or OpenSSL fails to allocate.
std::vector<std::uint8_t> encode_android_public_key(const BIGNUM& n, const BIGNUM& e);

// The struct of an RSA EVP_PKEY (public or private); empty as encode_android_public_key().
std::vector<std::uint8_t> encode_android_public_key(const EVP_PKEY& key);

// Reads n and e back from the struct; n0inv and rr are not checked, as in AOSP's decoder.
// On failure returns nullopt and says why in `why` (wrong size, word count, modulus, e).
struct RsaPublicNumbers {
  BnPtr n;
  BnPtr e;
};
std::optional<RsaPublicNumbers> decode_android_public_key(std::span<const std::uint8_t> bytes,
                                                          std::string& why);

// MD5 of the struct as colon-separated upper-case hex, as the "Allow USB debugging?"
// dialog shows it (AdbDebuggingManager.getFingerprints). Empty if MD5 is unavailable.
std::string android_fingerprint(std::span<const std::uint8_t> android_public_key);

}  // namespace adbwire::auth
