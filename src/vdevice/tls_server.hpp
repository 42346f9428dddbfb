// The virtual device's side of Wireless debugging TLS, as adbd's: one server identity (a
// fresh RSA key and self-signed certificate made at start), a CA list naming the host keys
// it knows, and a client check that accepts only those keys.
#pragma once

#include <openssl/x509.h>

#include <filesystem>
#include <memory>

#include "adbwire/keys.hpp"
#include "base/failure.hpp"
#include "transport/tls_certificate.hpp"
#include "transport/tls_engine.hpp"

namespace adbwire::vdevice {

class TlsServer {
 public:
  // keys_file: adb_keys-style, read at every handshake (keys appended meanwhile count);
  // empty or absent means no host is accepted. nullptr with failure set (io_error) when
  // OpenSSL cannot make the key, certificate or TLS 1.3 context.
  static std::shared_ptr<const TlsServer> create(std::filesystem::path keys_file,
                                                 detail::Failure& failure);

  // One connection's server endpoint; its CA list names every key in keys_file now.
  // nullptr with failure set (io_error) when OpenSSL fails. Thread safe.
  std::unique_ptr<transport::TlsEngine> accept(detail::Failure& failure) const;

  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

 private:
  TlsServer(std::filesystem::path keys_file, PrivateKey key)
      : keys_file_(std::move(keys_file)), key_(std::move(key)) {}
  static int verify_client(X509_STORE_CTX* store, void* server);
  std::vector<PublicKey> known_keys() const;

  std::filesystem::path keys_file_;
  PrivateKey key_;
  transport::SslCtxPtr ctx_;
};

}  // namespace adbwire::vdevice
