// One TLS 1.3 endpoint over memory BIOs: ciphertext in, plaintext out, and the reverse. It
// owns no socket, so the host transport (tls_transport.hpp) and the virtual device drive it
// from their own I/O, and STLS can hand it the bytes that shared a read with the STLS
// message. Not thread safe: one I/O thread drives it.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "auth/openssl_util.hpp"
#include "base/failure.hpp"

namespace adbwire::transport {

class TlsEngine {
 public:
  enum class Role { client, server };

  // A fresh endpoint using ctx (certificate, verification and callbacks are the context's;
  // the engine adds nothing). nullptr with failure set (io_error) when OpenSSL fails.
  static std::unique_ptr<TlsEngine> create(SSL_CTX* ctx, Role role, detail::Failure& failure);

  // Feeds ciphertext from the peer (may be empty: a client then emits its ClientHello),
  // advances the handshake and appends whatever plaintext it decrypts to plain. False with
  // failure set once TLS failed; every later call fails the same way. Codes: unauthorized
  // (the peer refused our certificate, or we refused the peer's), closed (the peer ended
  // TLS with close_notify), protocol_error (anything else: not TLS, no TLS 1.3, bad record).
  bool receive(std::span<const std::uint8_t> cipher, std::vector<std::uint8_t>& plain,
               detail::Failure& failure);

  // Encrypts plaintext into pending_output(); only after handshake_done(). False with
  // failure set as receive().
  bool send(std::span<const std::uint8_t> plain, detail::Failure& failure);

  // Ciphertext to put on the wire, in order (handshake, records, alerts — an alert is left
  // here after a failure, so the peer can learn why). Valid until the next non-const call.
  std::span<const std::uint8_t> pending_output() const noexcept;
  void consume_output(std::size_t n) noexcept;

  bool handshake_done() const noexcept;
  // "TLSv1.3" and "TLS_AES_128_GCM_SHA256" once the handshake is done.
  std::string version() const;
  std::string cipher() const;
  // SHA-256 of the peer certificate's public key (DER SubjectPublicKeyInfo), lowercase hex, as
  // AOSP names keys in its TLS CA list; empty before the handshake or without a certificate.
  std::string peer_key_fingerprint() const;
  // For the context's callbacks (certificate selection) to find their way back.
  SSL* ssl() const noexcept { return ssl_.get(); }

 private:
  using SslPtr = std::unique_ptr<SSL, auth::OpenSslDeleter<SSL_free>>;

  TlsEngine(SslPtr ssl, BIO* in, BIO* out) : ssl_(std::move(ssl)), in_(in), out_(out) {}
  bool fail(int result, detail::Failure& failure);
  void drain_output();

  SslPtr ssl_;
  BIO* in_;   // owned by ssl_
  BIO* out_;  // owned by ssl_
  std::vector<std::uint8_t> output_;
  std::size_t output_offset_ = 0;
  detail::Failure failure_;
};

}  // namespace adbwire::transport
