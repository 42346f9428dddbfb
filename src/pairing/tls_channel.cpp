#include "pairing/tls_channel.hpp"

#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "auth/openssl_util.hpp"

namespace adbwire::pairing {

TlsChannel::TlsChannel(int fd, std::unique_ptr<transport::TlsEngine> engine, std::string peer)
    : fd_(fd), engine_(std::move(engine)), peer_(std::move(peer)) {}

TlsChannel::~TlsChannel() {
  if (fd_ >= 0) ::close(fd_);
}

bool TlsChannel::wait(short events, Deadline deadline, detail::Failure& failure) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      failure.set(errc::timeout, peer_ + " stopped answering");
      return false;
    }
    pollfd entry{fd_, events, 0};
    const int ready = ::poll(&entry, 1, static_cast<int>(std::min<long long>(left.count(), 60000)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) {
      failure.set(errc::io_error, "waiting for " + peer_ + ": " + std::strerror(errno));
      return false;
    }
  }
}

bool TlsChannel::flush(Deadline deadline, detail::Failure& failure) {
  for (auto out = engine_->pending_output(); !out.empty(); out = engine_->pending_output()) {
    if (!wait(POLLOUT, deadline, failure)) return false;
    const ssize_t sent = ::send(fd_, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      if (errno == EPIPE || errno == ECONNRESET) {
        failure.set(errc::closed, peer_ + " closed the connection");
      } else {
        failure.set(errc::io_error, "writing to " + peer_ + ": " + std::strerror(errno));
      }
      return false;
    }
    engine_->consume_output(static_cast<std::size_t>(sent));
  }
  return true;
}

bool TlsChannel::receive_more(Deadline deadline, detail::Failure& failure) {
  std::array<std::uint8_t, 16384> buffer{};
  for (;;) {
    if (!wait(POLLIN, deadline, failure)) return false;
    const ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (got == 0 || (got < 0 && errno == ECONNRESET)) {
      failure.set(errc::closed, peer_ + " closed the connection");
      return false;
    }
    if (got < 0) {
      failure.set(errc::io_error, "reading from " + peer_ + ": " + std::strerror(errno));
      return false;
    }
    if (!engine_->receive({buffer.data(), static_cast<std::size_t>(got)}, plain_, failure)) {
      flush(deadline, failure);  // the alert tells the peer why
      return false;
    }
    return true;
  }
}

bool TlsChannel::handshake(Deadline deadline, detail::Failure& failure) {
  if (!engine_->receive({}, plain_, failure)) return false;
  while (!engine_->handshake_done()) {
    if (!flush(deadline, failure)) return false;
    if (!receive_more(deadline, failure)) {
      if (failure.code == errc::closed) {
        failure.set(errc::protocol_error,
                    peer_ +
                        " closed the connection during the TLS handshake: no pairing "
                        "service answers there");
      }
      return false;
    }
  }
  return flush(deadline, failure);
}

bool TlsChannel::export_keying_material(std::span<std::uint8_t> out, std::span<const char> label,
                                        detail::Failure& failure) {
  if (SSL_export_keying_material(engine_->ssl(), out.data(), out.size(), label.data(), label.size(),
                                 nullptr, 0, 0) != 1) {
    failure.set(errc::io_error, "cannot export TLS keying material: " + auth::take_openssl_error());
    return false;
  }
  return true;
}

bool TlsChannel::write(std::span<const std::uint8_t> bytes, Deadline deadline,
                       detail::Failure& failure) {
  return engine_->send(bytes, failure) && flush(deadline, failure);
}

bool TlsChannel::read_exact(std::span<std::uint8_t> out, Deadline deadline,
                            detail::Failure& failure) {
  while (plain_.size() - plain_offset_ < out.size()) {
    if (!flush(deadline, failure) || !receive_more(deadline, failure)) return false;
  }
  std::copy_n(plain_.begin() + static_cast<std::ptrdiff_t>(plain_offset_), out.size(), out.begin());
  plain_offset_ += out.size();
  if (plain_offset_ == plain_.size()) {
    plain_.clear();
    plain_offset_ = 0;
  }
  return true;
}

}  // namespace adbwire::pairing
