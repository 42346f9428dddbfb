#include "adbwire/keys.hpp"

#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <algorithm>

#include "adbwire/error.hpp"
#include "auth/android_pubkey.hpp"
#include "auth/key_factory.hpp"
#include "auth/openssl_util.hpp"
#include "base/base64.hpp"

namespace adbwire {

struct PrivateKey::Impl {
  auth::EvpPkeyPtr key;
  std::vector<std::uint8_t> android_key;
};

struct PublicKey::Impl {
  auth::EvpPkeyPtr key;
  std::vector<std::uint8_t> android_key;
};

namespace auth {
namespace {

// A PEM key file is a few KiB; anything far larger is not a key and is not read whole.
constexpr std::size_t kMaxKeyFileSize = 64 * 1024;
constexpr int kKeyBits = 2048;
constexpr unsigned long kPublicExponent = 65537;

// Refuses passphrases: adb keys are never encrypted, and OpenSSL must not prompt on a tty.
int refuse_passphrase(char*, int, int, void*) { return -1; }

void fail(Status& status, errc code, std::string detail) {
  status.code = make_error_code(code);
  status.detail = std::move(detail);
}

template <typename Impl>
const Impl& require(const std::unique_ptr<Impl>& impl, const char* type) {
  if (!impl) {
    throw Error(
        errc::invalid_argument,
        std::string("this ") + type + " is empty (moved from, or returned by a failed load/parse)");
  }
  return *impl;
}

bool is_line_break_or_nul(char c) { return c == '\n' || c == '\r' || c == '\0'; }

// Sets up an RSA PKCS#1 v1.5 operation whose input is an already computed SHA-1 digest:
// OpenSSL then adds the SHA-1 DigestInfo prefix and does not hash, as RSA_sign(NID_sha1).
bool init_token_operation(EVP_PKEY_CTX* ctx, bool sign) {
  return (sign ? EVP_PKEY_sign_init(ctx) : EVP_PKEY_verify_init(ctx)) == 1 &&
         EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 &&
         EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha1()) == 1;
}

}  // namespace

std::optional<PrivateKey> KeyFactory::load(const std::filesystem::path& pem_file, Status& status) {
  const auto text = read_small_file(pem_file, kMaxKeyFileSize, status);
  if (!text) {
    status.detail = "cannot load adb key: " + status.detail;
    return std::nullopt;
  }
  const BioPtr bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  if (!bio) {
    fail(status, errc::io_error, "cannot load adb key " + pem_file.string() + ": out of memory");
    return std::nullopt;
  }
  EvpPkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr));
  if (!key) {
    const std::string why = take_openssl_error();
    const bool encrypted = text->find("ENCRYPTED") != std::string::npos;
    fail(status, errc::parse_error,
         "cannot load adb key " + pem_file.string() +
             (encrypted ? ": the key is encrypted; adb keys have no passphrase (decrypt it "
                          "with `openssl pkey`)"
                        : ": not a PEM private key (" + why +
                              "); expected \"BEGIN PRIVATE KEY\" or \"BEGIN RSA PRIVATE KEY\""));
    return std::nullopt;
  }
  if (!EVP_PKEY_is_a(key.get(), "RSA")) {
    const char* type = EVP_PKEY_get0_type_name(key.get());
    fail(status, errc::parse_error,
         "cannot load adb key " + pem_file.string() + ": it holds a " + (type ? type : "non-RSA") +
             " key; adb keys are RSA");
    return std::nullopt;
  }
  if (EVP_PKEY_get_bits(key.get()) != kKeyBits) {
    fail(status, errc::parse_error,
         "cannot load adb key " + pem_file.string() + ": it is a " +
             std::to_string(EVP_PKEY_get_bits(key.get())) + "-bit RSA key; adb keys are 2048-bit");
    return std::nullopt;
  }
  auto android_key = encode_android_public_key(*key);
  if (android_key.empty()) {
    fail(status, errc::parse_error,
         "cannot load adb key " + pem_file.string() + ": its public half cannot be encoded " +
             "as Android's RSAPublicKey (" + take_openssl_error() + ")");
    return std::nullopt;
  }
  return PrivateKey(
      std::make_unique<PrivateKey::Impl>(PrivateKey::Impl{std::move(key), std::move(android_key)}));
}

std::optional<PrivateKey> KeyFactory::generate(Status& status) {
  const EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  const BnPtr exponent(BN_new());
  EVP_PKEY* raw = nullptr;
  if (!ctx || !exponent || !BN_set_word(exponent.get(), kPublicExponent) ||
      EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), kKeyBits) != 1 ||
      EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx.get(), exponent.get()) != 1 ||
      EVP_PKEY_generate(ctx.get(), &raw) != 1) {
    fail(status, errc::not_supported,
         "OpenSSL cannot generate a 2048-bit RSA key (" + take_openssl_error() +
             "); check the OpenSSL provider configuration (OPENSSL_CONF)");
    return std::nullopt;
  }
  EvpPkeyPtr key(raw);
  auto android_key = encode_android_public_key(*key);
  if (android_key.empty()) {
    fail(status, errc::not_supported,
         "OpenSSL generated an RSA key whose public half cannot be encoded (" +
             take_openssl_error() + ")");
    return std::nullopt;
  }
  return PrivateKey(
      std::make_unique<PrivateKey::Impl>(PrivateKey::Impl{std::move(key), std::move(android_key)}));
}

bool KeyFactory::save(const PrivateKey& key, const std::filesystem::path& pem_file,
                      std::string_view comment, Status& status) {
  const auto& impl = require(key.impl_, "PrivateKey");
  if (std::any_of(comment.begin(), comment.end(), is_line_break_or_nul)) {
    fail(status, errc::invalid_argument,
         "cannot save adb key " + pem_file.string() +
             ": the comment holds a line break or NUL, which would split the device's "
             "adb_keys line");
    return false;
  }
  const BioPtr bio(BIO_new(BIO_s_mem()));
  // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"), as adb does.
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), impl.key.get(), nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    fail(status, errc::io_error,
         "cannot save adb key " + pem_file.string() + ": PEM encoding failed (" +
             take_openssl_error() + ")");
    return false;
  }
  char* pem_data = nullptr;
  const long pem_size = BIO_get_mem_data(bio.get(), &pem_data);
  const std::string_view pem(pem_data, static_cast<std::size_t>(pem_size));

  std::filesystem::path pub_file = pem_file;
  pub_file += ".pub";
  const std::string pub = key.public_key_line(comment);

  // Both files are complete on disk before either name changes, so an I/O failure leaves
  // the previous pair (or nothing) in place.
  auto pending_key = PendingFile::write(pem_file, pem, 0600, true, status);
  if (!pending_key) return false;
  auto pending_pub = PendingFile::write(pub_file, pub, 0666, false, status);
  if (!pending_pub) return false;
  return pending_key->commit(status) && pending_pub->commit(status);
}

std::optional<PublicKey> KeyFactory::parse(std::string_view line, Status& status) {
  while (!line.empty() && is_line_break_or_nul(line.back())) line.remove_suffix(1);
  const std::string_view encoded = line.substr(0, line.find_first_of(" \t"));
  if (encoded.empty()) {
    fail(status, errc::parse_error, "public key line is empty: expected \"<base64> user@host\"");
    return std::nullopt;
  }
  const auto bytes = detail::base64_decode(encoded);
  if (!bytes) {
    fail(status, errc::parse_error,
         "public key is not valid base64 (" + std::to_string(encoded.size()) +
             " characters); an adbkey.pub key is 700 base64 characters");
    return std::nullopt;
  }
  std::string why;
  auto numbers = decode_android_public_key(*bytes, why);
  if (!numbers) {
    fail(status, errc::parse_error, "public key is not an Android RSA key: " + why);
    return std::nullopt;
  }

  const ParamBldPtr builder(OSSL_PARAM_BLD_new());
  ParamPtr params;
  if (builder &&
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, numbers->n.get()) == 1 &&
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, numbers->e.get()) == 1) {
    params.reset(OSSL_PARAM_BLD_to_param(builder.get()));
  }
  const EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    fail(status, errc::parse_error,
         "public key is not usable by OpenSSL (" + take_openssl_error() + ")");
    return std::nullopt;
  }
  EvpPkeyPtr key(raw);
  auto android_key = encode_android_public_key(*numbers->n, *numbers->e);
  if (android_key.empty()) {
    fail(status, errc::parse_error,
         "public key cannot be re-encoded (" + take_openssl_error() + ")");
    return std::nullopt;
  }
  return PublicKey(
      std::make_unique<PublicKey::Impl>(PublicKey::Impl{std::move(key), std::move(android_key)}));
}

bool KeyFactory::same_key(const PrivateKey& a, const PrivateKey& b) {
  return require(a.impl_, "PrivateKey").android_key == require(b.impl_, "PrivateKey").android_key;
}

EVP_PKEY* KeyFactory::evp_key(const PrivateKey& key) noexcept {
  return key.impl_ ? key.impl_->key.get() : nullptr;
}

EVP_PKEY* KeyFactory::evp_key(const PublicKey& key) noexcept {
  return key.impl_ ? key.impl_->key.get() : nullptr;
}

}  // namespace auth

PrivateKey PrivateKey::load(const std::filesystem::path& pem_file) {
  auth::Status status;
  auto key = auth::KeyFactory::load(pem_file, status);
  throw_if_error(status.code, status.detail);
  return std::move(*key);
}

PrivateKey PrivateKey::load(const std::filesystem::path& pem_file, std::error_code& error) {
  auth::Status status;
  auto key = auth::KeyFactory::load(pem_file, status);
  error = status.code;
  return key ? std::move(*key) : PrivateKey(nullptr);
}

PrivateKey PrivateKey::generate() {
  auth::Status status;
  auto key = auth::KeyFactory::generate(status);
  throw_if_error(status.code, status.detail);
  return std::move(*key);
}

void PrivateKey::save(const std::filesystem::path& pem_file, std::string_view comment) const {
  auth::Status status;
  auth::KeyFactory::save(*this, pem_file, comment, status);
  throw_if_error(status.code, status.detail);
}

void PrivateKey::save(const std::filesystem::path& pem_file, std::string_view comment,
                      std::error_code& error) const {
  auth::Status status;
  auth::KeyFactory::save(*this, pem_file, comment, status);
  error = status.code;
}

std::vector<std::uint8_t> PrivateKey::sign_token(std::span<const std::uint8_t> token) const {
  const auto& impl = auth::require(impl_, "PrivateKey");
  if (token.size() != auth::kTokenSize) {
    throw Error(errc::invalid_argument, "an ADB AUTH token is 20 bytes, this one is " +
                                            std::to_string(token.size()) +
                                            "; the device sent a malformed AUTH(TOKEN)");
  }
  const auth::EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, impl.key.get(), nullptr));
  std::size_t size = 0;
  if (!ctx || !auth::init_token_operation(ctx.get(), true) ||
      EVP_PKEY_sign(ctx.get(), nullptr, &size, token.data(), token.size()) != 1) {
    throw Error(errc::not_supported, "OpenSSL cannot sign with RSA PKCS#1 v1.5 and SHA-1 (" +
                                         auth::take_openssl_error() +
                                         "); check the OpenSSL provider configuration");
  }
  std::vector<std::uint8_t> signature(size);
  if (EVP_PKEY_sign(ctx.get(), signature.data(), &size, token.data(), token.size()) != 1) {
    throw Error(errc::not_supported,
                "OpenSSL failed to sign the AUTH token (" + auth::take_openssl_error() + ")");
  }
  signature.resize(size);
  return signature;
}

std::string PrivateKey::public_key_line(std::string_view comment) const {
  std::string line = detail::base64_encode(auth::require(impl_, "PrivateKey").android_key);
  line += ' ';
  line += comment;
  return line;
}

std::vector<std::uint8_t> PrivateKey::android_public_key() const {
  return auth::require(impl_, "PrivateKey").android_key;
}

std::string PrivateKey::fingerprint() const {
  return auth::android_fingerprint(auth::require(impl_, "PrivateKey").android_key);
}

PrivateKey::PrivateKey(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrivateKey::PrivateKey(PrivateKey&&) noexcept = default;
PrivateKey& PrivateKey::operator=(PrivateKey&&) noexcept = default;
PrivateKey::~PrivateKey() = default;

PublicKey PublicKey::parse(std::string_view line) {
  auth::Status status;
  auto key = auth::KeyFactory::parse(line, status);
  throw_if_error(status.code, status.detail);
  return std::move(*key);
}

PublicKey PublicKey::parse(std::string_view line, std::error_code& error) {
  auth::Status status;
  auto key = auth::KeyFactory::parse(line, status);
  error = status.code;
  return key ? std::move(*key) : PublicKey(nullptr);
}

bool PublicKey::verify_token(std::span<const std::uint8_t> token,
                             std::span<const std::uint8_t> signature) const noexcept {
  if (!impl_ || token.size() != auth::kTokenSize || signature.size() != auth::kModulusBytes) {
    return false;
  }
  const auth::EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, impl_->key.get(), nullptr));
  const bool valid = ctx && auth::init_token_operation(ctx.get(), false) &&
                     EVP_PKEY_verify(ctx.get(), signature.data(), signature.size(), token.data(),
                                     token.size()) == 1;
  if (!valid) auth::clear_openssl_errors();
  return valid;
}

std::vector<std::uint8_t> PublicKey::android_public_key() const {
  return auth::require(impl_, "PublicKey").android_key;
}

std::string PublicKey::fingerprint() const {
  return auth::android_fingerprint(auth::require(impl_, "PublicKey").android_key);
}

PublicKey::PublicKey(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PublicKey::PublicKey(PublicKey&&) noexcept = default;
PublicKey& PublicKey::operator=(PublicKey&&) noexcept = default;
PublicKey::~PublicKey() = default;

}  // namespace adbwire
