#include "vdevice/tls_link.hpp"

#include <algorithm>
#include <asio/write.hpp>
#include <cstdio>
#include <utility>

namespace adbwire::vdevice {

bool TlsLink::start(std::vector<std::uint8_t> first) {
  engine_ = server_->accept(failure_);
  if (!engine_) return false;
  // A ClientHello flight never completes the handshake, so no plaintext comes of it.
  std::vector<std::uint8_t> none;
  return engine_->receive(first, none, failure_);
}

bool TlsLink::inbound(std::span<const std::uint8_t> bytes, protocol::Session& session,
                      std::span<const std::uint8_t>& out) {
  if (!engine_) {
    out = bytes;
    return true;
  }
  plain_.clear();
  if (!engine_->receive(bytes, plain_, failure_)) return false;
  if (!finished_ && engine_->handshake_done()) {
    finished_ = true;
    session.finish_tls();
  }
  out = plain_;
  return true;
}

std::span<const std::uint8_t> TlsLink::outbound(protocol::Session& session) {
  const std::span<const std::uint8_t> pending = session.pending_output();
  if (!engine_) {
    if (clear_offset_ == clear_.size()) {
      clear_.clear();
      clear_offset_ = 0;
    }
    clear_.insert(clear_.end(), pending.begin(), pending.end());
    session.consume_output(pending.size());
    return std::span<const std::uint8_t>(clear_).subspan(clear_offset_);
  }
  if (clear_offset_ < clear_.size())
    return std::span<const std::uint8_t>(clear_).subspan(clear_offset_);
  if (!pending.empty() && engine_->handshake_done() && engine_->send(pending, failure_)) {
    session.consume_output(pending.size());
  }
  return engine_->pending_output();
}

void TlsLink::consume(std::size_t n) noexcept {
  if (clear_offset_ < clear_.size()) {
    clear_offset_ += std::min(n, clear_.size() - clear_offset_);
    return;
  }
  if (engine_) engine_->consume_output(n);
}

void TlsLink::report_failure(asio::ip::tcp::socket& socket, const std::string& peer) {
  std::fprintf(stderr, "adbwire vdevice: %s: TLS: %s; closing this connection\n", peer.c_str(),
               failure_.detail.c_str());
  if (!engine_) return;
  const std::span<const std::uint8_t> alert = engine_->pending_output();
  std::error_code ignored;
  asio::write(socket, asio::buffer(alert.data(), alert.size()), ignored);
  engine_->consume_output(alert.size());
}

}  // namespace adbwire::vdevice
