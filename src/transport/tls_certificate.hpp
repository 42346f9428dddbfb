// How ADB names keys in TLS (Wireless debugging): the self-signed certificate a peer makes
// from its RSA key, and the CA-list entries with which adbd tells the host which of its keys
// it knows (O=AdbKey-0, CN=<SHA-256 of the key>), as AOSP's adb_ca_list and x509_generator.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <optional>
#include <string>

#include "auth/openssl_util.hpp"
#include "base/failure.hpp"

namespace adbwire::transport {

using X509Ptr = std::unique_ptr<X509, auth::OpenSslDeleter<X509_free>>;
using X509NamePtr = std::unique_ptr<X509_NAME, auth::OpenSslDeleter<X509_NAME_free>>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, auth::OpenSslDeleter<SSL_CTX_free>>;

// A self-signed certificate for key: subject and issuer C=US, O=Android, CN=Adb, CA:TRUE,
// valid from now for ten years, SHA-256 signed. Peers only compare its public key, so
// nothing in it is checked. nullptr with failure set (io_error) when OpenSSL fails.
X509Ptr self_signed_certificate(EVP_PKEY* key, detail::Failure& failure);

// Upper-case hex SHA-256 of the key's DER SubjectPublicKeyInfo; empty when it cannot be
// encoded. What adbd puts in the CN of a CA-list entry.
std::string adb_key_hash(EVP_PKEY* key);

// The CA-list entry naming a key hash: O=AdbKey-0, CN=hash. nullptr when OpenSSL fails.
X509NamePtr adb_key_ca_name(const std::string& hash);

// The key hash in a CA-list entry; nullopt for a name that is not an AdbKey-0 entry (a real
// CA, which adb ignores too).
std::optional<std::string> hash_from_ca_name(const X509_NAME* name);

}  // namespace adbwire::transport
