#include "pairing/pairing_tls.hpp"

#include <unistd.h>

#include "auth/openssl_util.hpp"
#include "transport/tls_certificate.hpp"

namespace adbwire::pairing {
namespace {

int accept_any_certificate(X509_STORE_CTX*, void*) { return 1; }

}  // namespace

std::unique_ptr<TlsChannel> open_channel(int fd, std::string peer, TlsSide side, EVP_PKEY* key,
                                         detail::Failure& failure) {
  auto give_up = [&](const std::string& what) {
    ::close(fd);
    failure.set(errc::io_error, what + ": " + auth::take_openssl_error());
    return nullptr;
  };
  transport::X509Ptr cert = transport::self_signed_certificate(key, failure);
  if (!cert) {
    ::close(fd);
    return nullptr;
  }
  const bool server = side == TlsSide::server;
  transport::SslCtxPtr ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  SSL_CTX* raw = ctx.get();
  if (raw == nullptr || SSL_CTX_set_min_proto_version(raw, TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(raw, TLS1_3_VERSION) != 1 ||
      SSL_CTX_use_certificate(raw, cert.get()) != 1 || SSL_CTX_use_PrivateKey(raw, key) != 1 ||
      (server && SSL_CTX_set_num_tickets(raw, 0) != 1)) {
    return give_up("cannot set up TLS 1.3 for pairing");
  }
  SSL_CTX_set_verify(
      raw, server ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_cert_verify_callback(raw, &accept_any_certificate, nullptr);
  auto engine = transport::TlsEngine::create(
      raw, server ? transport::TlsEngine::Role::server : transport::TlsEngine::Role::client,
      failure);
  if (!engine) {
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<TlsChannel>(fd, std::move(engine), std::move(peer));
}

}  // namespace adbwire::pairing
