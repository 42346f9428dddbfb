#include "vdevice/tls_server.hpp"

#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "auth/key_factory.hpp"

namespace adbwire::vdevice {

std::shared_ptr<const TlsServer> TlsServer::create(std::filesystem::path keys_file,
                                                   detail::Failure& failure) {
  auth::Status status;
  std::optional<PrivateKey> generated = auth::KeyFactory::generate(status);
  if (!generated) {
    failure.set(errc::io_error, "cannot make the TLS server key: " + status.detail);
    return nullptr;
  }
  std::shared_ptr<TlsServer> server(new TlsServer(std::move(keys_file), std::move(*generated)));
  EVP_PKEY* key = auth::KeyFactory::evp_key(server->key_);
  transport::X509Ptr cert = transport::self_signed_certificate(key, failure);
  if (!cert) return nullptr;
  server->ctx_.reset(SSL_CTX_new(TLS_server_method()));
  SSL_CTX* ctx = server->ctx_.get();
  if (ctx == nullptr || SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1 ||
      SSL_CTX_use_certificate(ctx, cert.get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
      SSL_CTX_set_num_tickets(ctx, 0) != 1) {
    failure.set(errc::io_error, "cannot set up the TLS 1.3 server: " + auth::take_openssl_error());
    return nullptr;
  }
  // adbd requires a client certificate and judges it by its key alone (adbd_tls_verify_cert).
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_cert_verify_callback(ctx, &TlsServer::verify_client, server.get());
  return server;
}

std::vector<PublicKey> TlsServer::known_keys() const {
  std::vector<PublicKey> keys;
  if (keys_file_.empty()) return keys;
  std::ifstream in(keys_file_);
  std::string line;
  while (std::getline(in, line)) {
    std::error_code error;
    PublicKey key = PublicKey::parse(line, error);
    if (!error) keys.push_back(std::move(key));
  }
  return keys;
}

std::unique_ptr<transport::TlsEngine> TlsServer::accept(detail::Failure& failure) const {
  auto engine =
      transport::TlsEngine::create(ctx_.get(), transport::TlsEngine::Role::server, failure);
  if (!engine) return nullptr;
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  bool ok = names != nullptr;
  for (const PublicKey& key : known_keys()) {
    if (!ok) break;
    transport::X509NamePtr name =
        transport::adb_key_ca_name(transport::adb_key_hash(auth::KeyFactory::evp_key(key)));
    ok = name && sk_X509_NAME_push(names, name.get()) > 0;
    if (ok) static_cast<void>(name.release());
  }
  if (!ok) {
    sk_X509_NAME_pop_free(names, X509_NAME_free);
    failure.set(errc::io_error,
                "cannot list the known keys for TLS: " + auth::take_openssl_error());
    return nullptr;
  }
  SSL_set_client_CA_list(engine->ssl(), names);
  return engine;
}

int TlsServer::verify_client(X509_STORE_CTX* store, void* opaque) {
  const auto& server = *static_cast<const TlsServer*>(opaque);
  X509* cert = X509_STORE_CTX_get0_cert(store);
  EVP_PKEY* offered = cert == nullptr ? nullptr : X509_get0_pubkey(cert);
  if (offered != nullptr) {
    for (const PublicKey& key : server.known_keys()) {
      if (EVP_PKEY_eq(auth::KeyFactory::evp_key(key), offered) == 1) return 1;
    }
  }
  X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED);
  return 0;
}

}  // namespace adbwire::vdevice
