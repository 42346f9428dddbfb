#include "transport/tls_engine.hpp"

#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <climits>

namespace adbwire::transport {
namespace {

// Alerts by which a TLS peer says it will not take our certificate (the reasons AOSP's
// TlsConnection maps to PeerRejectedCertificate).
bool is_certificate_alert(int reason) {
  switch (reason) {
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_ACCESS_DENIED:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      return true;
    default:
      return false;
  }
}

// Our own verification refused the peer's certificate (or it sent none).
bool is_our_refusal(int reason) {
  return reason == SSL_R_CERTIFICATE_VERIFY_FAILED ||
         reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE;
}

}  // namespace

std::unique_ptr<TlsEngine> TlsEngine::create(SSL_CTX* ctx, Role role, detail::Failure& failure) {
  SslPtr ssl(SSL_new(ctx));
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (!ssl || in == nullptr || out == nullptr) {
    BIO_free(in);
    BIO_free(out);
    failure.set(errc::io_error, "cannot start TLS: " + auth::take_openssl_error());
    return nullptr;
  }
  // An empty memory BIO means "no bytes yet", not end of stream.
  BIO_set_mem_eof_return(in, -1);
  SSL_set_bio(ssl.get(), in, out);
  if (role == Role::client) {
    SSL_set_connect_state(ssl.get());
  } else {
    SSL_set_accept_state(ssl.get());
  }
  return std::unique_ptr<TlsEngine>(new TlsEngine(std::move(ssl), in, out));
}

bool TlsEngine::receive(std::span<const std::uint8_t> cipher, std::vector<std::uint8_t>& plain,
                        detail::Failure& failure) {
  if (failure_) {
    failure = failure_;
    return false;
  }
  while (!cipher.empty()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(cipher.size(), INT_MAX));
    const int written = BIO_write(in_, cipher.data(), chunk);
    if (written <= 0) {
      failure_.set(errc::io_error, "cannot buffer TLS input: " + auth::take_openssl_error());
      failure = failure_;
      return false;
    }
    cipher = cipher.subspan(static_cast<std::size_t>(written));
  }
  if (!SSL_is_init_finished(ssl_.get())) {
    const int result = SSL_do_handshake(ssl_.get());
    drain_output();
    if (result != 1) {
      const int error = SSL_get_error(ssl_.get(), result);
      if (error == SSL_ERROR_WANT_READ) return true;
      return fail(result, failure);
    }
  }
  std::array<std::uint8_t, 16 * 1024> buffer{};
  for (;;) {
    const int got = SSL_read(ssl_.get(), buffer.data(), static_cast<int>(buffer.size()));
    if (got > 0) {
      plain.insert(plain.end(), buffer.begin(), buffer.begin() + got);
      continue;
    }
    drain_output();
    if (SSL_get_error(ssl_.get(), got) == SSL_ERROR_WANT_READ) return true;
    return fail(got, failure);
  }
}

bool TlsEngine::send(std::span<const std::uint8_t> plain, detail::Failure& failure) {
  if (failure_) {
    failure = failure_;
    return false;
  }
  while (!plain.empty()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(plain.size(), INT_MAX));
    const int sent = SSL_write(ssl_.get(), plain.data(), chunk);
    if (sent <= 0) {
      drain_output();
      return fail(sent, failure);
    }
    plain = plain.subspan(static_cast<std::size_t>(sent));
  }
  drain_output();
  return true;
}

bool TlsEngine::fail(int result, detail::Failure& failure) {
  const int error = SSL_get_error(ssl_.get(), result);
  const unsigned long code = ERR_peek_error();
  const int reason = ERR_GET_REASON(code);
  std::string why = auth::take_openssl_error();
  if (error == SSL_ERROR_ZERO_RETURN) {
    failure_.set(errc::closed, "the peer ended TLS (close_notify)");
  } else if (is_certificate_alert(reason)) {
    failure_.set(errc::unauthorized, "the peer refused our TLS certificate (" + why + ")");
  } else if (is_our_refusal(reason)) {
    failure_.set(errc::unauthorized, "the peer's TLS certificate was refused (" + why + ")");
  } else {
    failure_.set(errc::protocol_error, "TLS failed (" + why + ")");
  }
  failure = failure_;
  return false;
}

void TlsEngine::drain_output() {
  if (output_offset_ > 0 && output_offset_ == output_.size()) {
    output_.clear();
    output_offset_ = 0;
  }
  const std::size_t pending = BIO_ctrl_pending(out_);
  if (pending == 0) return;
  const std::size_t old_size = output_.size();
  output_.resize(old_size + pending);
  const int got = BIO_read(out_, output_.data() + old_size, static_cast<int>(pending));
  output_.resize(old_size + static_cast<std::size_t>(std::max(got, 0)));
}

std::span<const std::uint8_t> TlsEngine::pending_output() const noexcept {
  return std::span<const std::uint8_t>(output_).subspan(output_offset_);
}

void TlsEngine::consume_output(std::size_t n) noexcept {
  output_offset_ += std::min(n, output_.size() - output_offset_);
  if (output_offset_ == output_.size()) {
    output_.clear();
    output_offset_ = 0;
  }
}

bool TlsEngine::handshake_done() const noexcept { return SSL_is_init_finished(ssl_.get()) == 1; }

std::string TlsEngine::version() const { return SSL_get_version(ssl_.get()); }

std::string TlsEngine::peer_key_fingerprint() const {
  const std::unique_ptr<X509, auth::OpenSslDeleter<X509_free>> certificate(
      SSL_get1_peer_certificate(ssl_.get()));
  if (!certificate) return {};
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(X509_get0_pubkey(certificate.get()), &der);
  if (length <= 0) return {};
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, static_cast<std::size_t>(length), digest);
  OPENSSL_free(der);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0xF];
  }
  return hex;
}

std::string TlsEngine::cipher() const {
  const char* name = SSL_get_cipher_name(ssl_.get());
  return name == nullptr ? std::string() : std::string(name);
}

}  // namespace adbwire::transport
