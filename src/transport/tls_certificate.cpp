#include "transport/tls_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/x509v3.h>

#include <array>
#include <cstdio>
#include <vector>

namespace adbwire::transport {
namespace {

constexpr long kValiditySeconds = 10L * 365 * 24 * 60 * 60;
constexpr const char* kAdbKeyIdentifier = "AdbKey-0";

bool add_text(X509_NAME* name, const char* field, const std::string& value) {
  return X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC,
                                    reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                    0) == 1;
}

bool add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (extension == nullptr) return false;
  const bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

std::optional<std::string> text_of(const X509_NAME* name, int nid) {
  const int index = X509_NAME_get_index_by_NID(name, nid, -1);
  if (index < 0) return std::nullopt;
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  if (data == nullptr) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                     static_cast<std::size_t>(ASN1_STRING_length(data)));
}

}  // namespace

X509Ptr self_signed_certificate(EVP_PKEY* key, detail::Failure& failure) {
  X509Ptr cert(X509_new());
  bool ok = cert != nullptr && key != nullptr;
  if (ok) {
    X509_NAME* subject = X509_get_subject_name(cert.get());
    ok =
        X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
        ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1) == 1 &&
        X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0) != nullptr &&
        X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds) != nullptr &&
        X509_set_pubkey(cert.get(), key) == 1 && add_text(subject, "C", "US") &&
        add_text(subject, "O", "Android") && add_text(subject, "CN", "Adb") &&
        X509_set_issuer_name(cert.get(), subject) == 1 &&
        add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") &&
        add_extension(cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") &&
        add_extension(cert.get(), NID_subject_key_identifier, "hash") &&
        X509_sign(cert.get(), key, EVP_sha256()) > 0;
  }
  if (!ok) {
    failure.set(errc::io_error,
                "cannot make the TLS certificate for the adb key: " + auth::take_openssl_error());
    return nullptr;
  }
  return cert;
}

std::string adb_key_hash(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int size = key == nullptr ? 0 : i2d_PUBKEY(key, &der);
  if (size <= 0) {
    auth::clear_openssl_errors();
    return {};
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_size = 0;
  const bool hashed = EVP_Digest(der, static_cast<std::size_t>(size), digest.data(), &digest_size,
                                 EVP_sha256(), nullptr) == 1;
  OPENSSL_free(der);
  if (!hashed) {
    auth::clear_openssl_errors();
    return {};
  }
  std::string hex;
  for (unsigned int i = 0; i < digest_size; ++i) {
    char pair[3];
    std::snprintf(pair, sizeof pair, "%02X", digest[i]);
    hex += pair;
  }
  return hex;
}

X509NamePtr adb_key_ca_name(const std::string& hash) {
  X509NamePtr name(X509_NAME_new());
  if (!name || !add_text(name.get(), "O", kAdbKeyIdentifier) || !add_text(name.get(), "CN", hash)) {
    auth::clear_openssl_errors();
    return nullptr;
  }
  return name;
}

std::optional<std::string> hash_from_ca_name(const X509_NAME* name) {
  if (name == nullptr || text_of(name, NID_organizationName) != kAdbKeyIdentifier) {
    return std::nullopt;
  }
  return text_of(name, NID_commonName);
}

}  // namespace adbwire::transport
