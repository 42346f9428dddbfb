// The byte path of one virtual-device connection on a TLS-only port (VirtualDeviceOptions::
// tls): ADB messages in the clear until the host's STLS, TLS records after it.
#pragma once

#include <asio/ip/tcp.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adbwire/protocol/session.hpp"
#include "transport/tls_engine.hpp"
#include "vdevice/tls_server.hpp"

namespace adbwire::vdevice {

class TlsLink {
 public:
  explicit TlsLink(std::shared_ptr<const TlsServer> server) : server_(std::move(server)) {}

  // The host answered STLS: starts the TLS server on the bytes that followed its STLS.
  // False when TLS failed (then report_failure()).
  bool start(std::vector<std::uint8_t> first);

  // Bytes from the socket, turned into what session.receive() takes: unchanged before
  // start(), decrypted after. Calls session.finish_tls() (our CNXN) once the handshake is
  // done, which means the host's key was accepted. `out` stays valid until the next call.
  // False when TLS failed (then report_failure()).
  bool inbound(std::span<const std::uint8_t> bytes, protocol::Session& session,
               std::span<const std::uint8_t>& out);

  // What goes on the wire next: the session's output in the clear before start(), TLS
  // records after (the session's output is taken as it is encrypted). Then consume() what
  // was handed to the socket.
  std::span<const std::uint8_t> outbound(protocol::Session& session);
  void consume(std::size_t n) noexcept;

  // Logs why TLS failed and sends the pending alert (a few bytes, so a blocking write) so
  // the host learns it, e.g. that its certificate was refused. The caller then closes.
  void report_failure(asio::ip::tcp::socket& socket, const std::string& peer);

 private:
  std::shared_ptr<const TlsServer> server_;
  std::unique_ptr<transport::TlsEngine> engine_;
  detail::Failure failure_;
  bool finished_ = false;
  std::vector<std::uint8_t> clear_;  // before start(): the session's output, unencrypted
  std::size_t clear_offset_ = 0;
  std::vector<std::uint8_t> plain_;
};

}  // namespace adbwire::vdevice
