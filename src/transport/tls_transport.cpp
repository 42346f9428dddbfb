#include "transport/tls_transport.hpp"

#include <algorithm>
#include <asio/post.hpp>
#include <cctype>
#include <cstring>
#include <utility>

#include "auth/key_factory.hpp"

namespace adbwire::transport {
namespace {

constexpr std::size_t kCipherReadSize = 64 * 1024;

SslCtxPtr client_context(void* chooser, int (*choose)(SSL*, void*), detail::Failure& failure) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx || SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION) != 1) {
    failure.set(errc::io_error, "cannot set up TLS 1.3: " + auth::take_openssl_error());
    return nullptr;
  }
  // The device's certificate is self-signed and never checked: adbd's trust is its key list.
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  SSL_CTX_set_cert_cb(ctx.get(), choose, chooser);
  return ctx;
}

}  // namespace

TlsTransport::TlsTransport(asio::io_context& io, std::unique_ptr<Transport> inner,
                           std::string target)
    : io_(io), inner_(std::move(inner)), target_(std::move(target)), cipher_in_(kCipherReadSize) {}

TlsTransport::~TlsTransport() { close(); }

std::unique_ptr<TlsTransport> TlsTransport::start(asio::io_context& io,
                                                  std::unique_ptr<Transport> inner,
                                                  std::vector<std::uint8_t> clear,
                                                  std::vector<std::uint8_t> received,
                                                  const std::vector<PrivateKey>& keys,
                                                  std::string target, detail::Failure& failure) {
  std::unique_ptr<TlsTransport> link(new TlsTransport(io, std::move(inner), std::move(target)));
  for (const PrivateKey& key : keys) {
    EVP_PKEY* evp = auth::KeyFactory::evp_key(key);
    if (evp == nullptr) continue;
    link->chooser_.keys.push_back(evp);
    link->chooser_.hashes.push_back(adb_key_hash(evp));
    link->fingerprints_.push_back(key.fingerprint());
  }
  if (link->chooser_.keys.empty()) {
    failure.set(errc::unauthorized,
                link->target_ + " requires TLS and there is no adb key to make a certificate from");
    return nullptr;
  }
  link->ctx_ = client_context(&link->chooser_, &TlsTransport::choose_certificate, failure);
  if (!link->ctx_) return nullptr;
  link->engine_ = TlsEngine::create(link->ctx_.get(), TlsEngine::Role::client, failure);
  if (!link->engine_) return nullptr;

  link->queued_ = std::move(clear);
  link->queued_total_ = link->queued_.size();
  std::vector<std::uint8_t> plain;
  detail::Failure why;
  if (!link->engine_->receive(received, plain, why)) link->tls_failed(why);
  link->plain_ = std::move(plain);
  link->pump_output();
  link->read_inner();
  return link;
}

int TlsTransport::choose_certificate(SSL* ssl, void* opaque) {
  auto& chooser = *static_cast<KeyChooser*>(opaque);
  // adbd lists the keys it knows as O=AdbKey-0, CN=<SHA-256>: present that key if we hold it.
  if (const STACK_OF(X509_NAME)* names = SSL_get0_peer_CA_list(ssl)) {
    const int count = sk_X509_NAME_num(names);
    bool found = false;
    for (int i = 0; i < count && !found; ++i) {
      auto hash = hash_from_ca_name(sk_X509_NAME_value(names, i));
      if (!hash) continue;
      // adbd writes upper-case hex; AOSP's host decodes either case, so we compare in one.
      std::transform(hash->begin(), hash->end(), hash->begin(),
                     [](unsigned char c) { return std::toupper(c); });
      const auto match = std::find(chooser.hashes.begin(), chooser.hashes.end(), *hash);
      if (match != chooser.hashes.end()) {
        chooser.chosen = static_cast<std::size_t>(match - chooser.hashes.begin());
        found = true;
      }
    }
  }
  EVP_PKEY* key = chooser.keys[chooser.chosen];
  detail::Failure ignored;
  X509Ptr cert = self_signed_certificate(key, ignored);
  return cert && SSL_use_certificate(ssl, cert.get()) == 1 && SSL_use_PrivateKey(ssl, key) == 1 ? 1
                                                                                                : 0;
}

void TlsTransport::async_read_some(std::span<std::uint8_t> buffer, Handler handler) {
  read_buffer_ = buffer;
  read_handler_ = std::move(handler);
  if (plain_offset_ < plain_.size() || failure_) {
    complete_read({});
    return;
  }
  read_inner();
}

void TlsTransport::async_write(std::span<const std::uint8_t> data, Handler handler) {
  write_handler_ = std::move(handler);
  write_size_ = data.size();
  detail::Failure why;
  if (failure_ || !engine_->send(data, why)) {
    if (!failure_) tls_failed(why);
    complete_write(failure_.code);
    return;
  }
  pump_output();
  write_mark_ = queued_total_;
  if (written_total_ >= write_mark_) complete_write({});
}

void TlsTransport::close() noexcept {
  if (inner_) inner_->close();
}

std::string TlsTransport::description() const { return inner_->description() + " (TLS)"; }

void TlsTransport::read_inner() {
  if (inner_reading_ || failure_) return;
  inner_reading_ = true;
  inner_->async_read_some(cipher_in_, [this](const std::error_code& error, std::size_t bytes) {
    on_inner_read(error, bytes);
  });
}

void TlsTransport::on_inner_read(const std::error_code& error, std::size_t bytes) {
  inner_reading_ = false;
  if (error) {
    if (read_handler_) complete_read(error);
    return;
  }
  if (plain_offset_ == plain_.size()) {
    plain_.clear();
    plain_offset_ = 0;
  }
  detail::Failure why;
  if (!engine_->receive(std::span(cipher_in_.data(), bytes), plain_, why)) tls_failed(why);
  pump_output();
  if (!read_handler_) return;
  if (plain_offset_ < plain_.size() || failure_) {
    complete_read({});
  } else {
    read_inner();
  }
}

void TlsTransport::pump_output() {
  const std::span<const std::uint8_t> out = engine_->pending_output();
  queued_.insert(queued_.end(), out.begin(), out.end());
  queued_total_ += out.size();
  engine_->consume_output(out.size());
  if (inner_writing_ || queued_.empty()) return;
  sending_.swap(queued_);
  queued_.clear();
  inner_writing_ = true;
  inner_->async_write(sending_, [this](const std::error_code& error, std::size_t) {
    inner_writing_ = false;
    written_total_ += sending_.size();
    sending_.clear();
    if (error) {
      if (write_handler_) complete_write(error);
      return;
    }
    if (write_handler_ && written_total_ >= write_mark_) complete_write({});
    pump_output();
  });
}

void TlsTransport::tls_failed(const detail::Failure& why) {
  if (failure_) return;
  if (why.code == errc::unauthorized) {
    const std::string fingerprint =
        chooser_.chosen < fingerprints_.size() ? fingerprints_[chooser_.chosen] : "?";
    failure_.set(errc::unauthorized,
                 target_ + " does not know this host's adb key (" + fingerprint +
                     "): " + why.detail +
                     ". Pair first: on the phone open Developer options > Wireless debugging > "
                     "Pair device with pairing code, run `adb pair HOST:PORT` with that code "
                     "(Android 11+), then connect again; adbwire cannot pair by itself yet");
  } else if (why.code == errc::closed) {
    failure_.set(errc::closed, target_ + " ended the TLS session (close_notify)");
  } else if (!engine_->handshake_done()) {
    failure_.set(why.code,
                 target_ + " asked for TLS (STLS) but the TLS 1.3 handshake failed: " + why.detail +
                     "; is it an adbd Wireless debugging port (Android 11+)?");
  } else {
    failure_.set(why.code, target_ + " broke the TLS session: " + why.detail);
  }
}

void TlsTransport::complete_read(const std::error_code& error) {
  Handler handler = std::exchange(read_handler_, nullptr);
  std::error_code result = error;
  std::size_t copied = 0;
  if (!result && plain_offset_ < plain_.size()) {
    copied = std::min(read_buffer_.size(), plain_.size() - plain_offset_);
    std::memcpy(read_buffer_.data(), plain_.data() + plain_offset_, copied);
    plain_offset_ += copied;
  } else if (!result) {
    result = failure_.code;
  }
  asio::post(io_, [handler = std::move(handler), result, copied] { handler(result, copied); });
}

void TlsTransport::complete_write(const std::error_code& error) {
  Handler handler = std::exchange(write_handler_, nullptr);
  const std::size_t size = error ? 0 : write_size_;
  asio::post(io_, [handler = std::move(handler), error, size] { handler(error, size); });
}

}  // namespace adbwire::transport
