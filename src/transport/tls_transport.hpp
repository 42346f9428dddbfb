// The host side of STLS: a Transport that runs TLS 1.3 over another Transport once the
// device answered CNXN with STLS (Wireless debugging, Android 11+), as AOSP's host does.
//
// Why a Transport decorator over memory BIOs rather than an SSL stream on the socket: the
// runtime keeps driving one Transport whatever the link (TCP today, anything tomorrow), the
// TLS state machine stays sans-IO like the protocol core (tls_engine.hpp), and the bytes
// that shared a read with STLS are simply handed over.
#pragma once

#include <asio/io_context.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/keys.hpp"
#include "base/failure.hpp"
#include "transport/tls_certificate.hpp"
#include "transport/tls_engine.hpp"
#include "transport/transport.hpp"

namespace adbwire::transport {

class TlsTransport final : public Transport {
 public:
  // Takes over `inner` right after the device's STLS: sends `clear` (our STLS answer) in the
  // clear, then the TLS client handshake, feeding it `received` (bytes the device sent after
  // its STLS) first. The client certificate is made from the key the device names in its CA
  // list, else from keys.front(), our first key (AOSP's host falls back to the key whose
  // SHA-256 sorts first, an accident of its std::map); keys must not be empty. The device's
  // certificate is not checked (AOSP does not either: the key list is the trust). `target`
  // is for messages. nullptr with failure set (io_error) when OpenSSL cannot start.
  static std::unique_ptr<TlsTransport> start(asio::io_context& io, std::unique_ptr<Transport> inner,
                                             std::vector<std::uint8_t> clear,
                                             std::vector<std::uint8_t> received,
                                             const std::vector<PrivateKey>& keys,
                                             std::string target, detail::Failure& failure);

  ~TlsTransport() override;

  // Plaintext in and out. A TLS failure completes the handler with failure().code.
  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override;
  void async_write(std::span<const std::uint8_t> data, Handler handler) override;
  void close() noexcept override;
  std::string description() const override;

  // Set when TLS itself failed (not the link beneath): unauthorized when the device refused
  // our certificate (its message says to pair with `adb pair`), protocol_error when the peer
  // does not speak TLS 1.3, closed after its close_notify.
  const detail::Failure& failure() const noexcept { return failure_; }

  bool handshake_done() const noexcept { return engine_->handshake_done(); }
  std::string version() const { return engine_->version(); }
  std::string cipher() const { return engine_->cipher(); }
  std::string peer_key_fingerprint() const { return engine_->peer_key_fingerprint(); }
  // Index in `keys` of the key whose certificate was presented.
  std::size_t key_index() const noexcept { return chooser_.chosen; }

 private:
  // What the certificate callback needs; lives as long as the context.
  struct KeyChooser {
    std::vector<EVP_PKEY*> keys;  // borrowed from the PrivateKeys, which outlive the link
    std::vector<std::string> hashes;
    std::size_t chosen = 0;
  };

  TlsTransport(asio::io_context& io, std::unique_ptr<Transport> inner, std::string target);
  static int choose_certificate(SSL* ssl, void* chooser);

  void read_inner();
  void on_inner_read(const std::error_code& error, std::size_t bytes);
  void pump_output();
  void tls_failed(const detail::Failure& why);
  void complete_read(const std::error_code& error);
  void complete_write(const std::error_code& error);

  asio::io_context& io_;
  std::unique_ptr<Transport> inner_;
  std::string target_;
  std::vector<std::string> fingerprints_;
  KeyChooser chooser_;
  SslCtxPtr ctx_;
  std::unique_ptr<TlsEngine> engine_;
  detail::Failure failure_;

  std::vector<std::uint8_t> cipher_in_;
  bool inner_reading_ = false;
  std::vector<std::uint8_t> plain_;  // decrypted, not yet read
  std::size_t plain_offset_ = 0;
  std::span<std::uint8_t> read_buffer_;
  Handler read_handler_;

  std::vector<std::uint8_t> queued_;   // ciphertext not yet handed to inner_
  std::vector<std::uint8_t> sending_;  // ciphertext inner_ is writing
  bool inner_writing_ = false;
  std::uint64_t queued_total_ = 0;   // ciphertext bytes ever queued
  std::uint64_t written_total_ = 0;  // ciphertext bytes inner_ confirmed
  std::uint64_t write_mark_ = 0;     // written_total_ at which the caller's write is done
  std::size_t write_size_ = 0;
  Handler write_handler_;
};

}  // namespace adbwire::transport
