// A blocking TLS 1.3 byte channel on a connected TCP socket, every call bounded by a
// deadline: what the pairing exchange runs on, on the host (client) and in the virtual device
// (server). The TLS state machine is transport's TlsEngine; this only moves its bytes with
// poll(2). Internal to the pairing layer. Not thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"
#include "transport/tls_engine.hpp"

namespace adbwire::pairing {

class TlsChannel {
 public:
  // Takes over fd (a connected TCP socket; closed by the destructor). `peer` names it in
  // messages ("192.168.1.5:37123").
  TlsChannel(int fd, std::unique_ptr<transport::TlsEngine> engine, std::string peer);
  ~TlsChannel();
  TlsChannel(const TlsChannel&) = delete;
  TlsChannel& operator=(const TlsChannel&) = delete;

  // Runs the handshake. Errors: timeout, protocol_error (not TLS 1.3, or the peer closed
  // during the handshake: no pairing service there), unauthorized (a certificate refused),
  // io_error.
  bool handshake(Deadline deadline, detail::Failure& failure);

  // RFC 8446 exported keying material for label (all its bytes are used, as given), no
  // context. Errors: io_error.
  bool export_keying_material(std::span<std::uint8_t> out, std::span<const char> label,
                              detail::Failure& failure);

  // Errors: timeout, closed (the peer hung up), io_error, protocol_error (bad TLS record).
  bool write(std::span<const std::uint8_t> bytes, Deadline deadline, detail::Failure& failure);
  bool read_exact(std::span<std::uint8_t> out, Deadline deadline, detail::Failure& failure);

  const std::string& peer() const noexcept { return peer_; }

 private:
  bool flush(Deadline deadline, detail::Failure& failure);
  bool receive_more(Deadline deadline, detail::Failure& failure);
  bool wait(short events, Deadline deadline, detail::Failure& failure);

  int fd_;
  std::unique_ptr<transport::TlsEngine> engine_;
  std::string peer_;
  std::vector<std::uint8_t> plain_;
  std::size_t plain_offset_ = 0;
};

}  // namespace adbwire::pairing
