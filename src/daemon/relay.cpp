#include "daemon/relay.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <array>
#include <cerrno>
#include <thread>
#include <vector>

#include "adbwire/error_detail.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::daemon {
namespace {

constexpr std::size_t kRelaySize = 256 * 1024;
// The client socket's send buffer: room for a few device payloads, so the device's bytes keep
// moving while the client writes its file, and the relay is woken per megabyte rather than per
// 200 KiB (the kernel's default). Kernel memory, bounded by net.core.wmem_max.
constexpr int kClientSendBuffer = 2 * 1024 * 1024;

// The device's bytes as pieces to send: each payload is sent from where the connection received
// it (Stream::read_chunk hands it over whole), framed by headers made beside it, never copied.
class Outgoing {
 public:
  explicit Outgoing(RelayFraming framing) : framing_(framing) {}

  // The pieces for one read: data (raw), data as DATA frames, DONE at the end (n == 0), FAIL
  // when the stream failed.
  std::span<iovec> pieces(std::span<std::uint8_t> data, const std::error_code& error) {
    pieces_.clear();
    if (framing_ == RelayFraming::raw) {
      if (!data.empty()) pieces_.push_back({data.data(), data.size()});
      return pieces_;
    }
    if (error || data.empty()) {
      tail_.clear();
      if (error) {
        append_frame(tail_, FrameKind::fail, failure_payload(error, last_error_detail()));
      } else {
        append_frame(tail_, FrameKind::done);
      }
      pieces_.push_back({tail_.data(), tail_.size()});
      return pieces_;
    }
    headers_.resize((data.size() + kMaxPayload - 1) / kMaxPayload);
    for (std::size_t i = 0; i < headers_.size(); ++i) {
      const std::span<std::uint8_t> piece =
          data.subspan(i * kMaxPayload).first(std::min(kMaxPayload, data.size() - i * kMaxPayload));
      headers_[i] = data_frame_header(piece.size());
      pieces_.push_back({headers_[i].data(), headers_[i].size()});
      pieces_.push_back({piece.data(), piece.size()});
    }
    return pieces_;
  }

 private:
  RelayFraming framing_;
  std::vector<std::array<std::uint8_t, 8>> headers_;
  std::vector<std::uint8_t> tail_;
  std::vector<iovec> pieces_;
};

}  // namespace

std::uint64_t relay(Stream& stream, int client, std::span<const std::uint8_t> early,
                    RelayFraming framing) {
  if (!early.empty()) {
    std::error_code error;
    stream.write(early, kNoDeadline, error);
  }
  ::setsockopt(client, SOL_SOCKET, SO_SNDBUF, &kClientSendBuffer, sizeof kClientSendBuffer);
  std::thread up([&stream, client] {
    std::vector<std::uint8_t> buffer(kRelaySize);
    bool writable = true;
    for (;;) {
      const ssize_t n = ::recv(client, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the client closed (ADB streams have no half-close)
      std::error_code error;
      // After the device ended the stream a write fails; what it sent before (a shell's exit
      // status) is still to be read below, and closing the stream here would drop it.
      if (writable) {
        stream.write(std::span(buffer.data(), static_cast<std::size_t>(n)), kNoDeadline, error);
      }
      writable = writable && !error;
    }
    stream.close();
  });
  std::vector<std::uint8_t> chunk;
  Outgoing outgoing(framing);
  std::uint64_t relayed = 0;
  for (;;) {
    std::error_code error;
    const std::size_t n = stream.read_chunk(chunk, kRelaySize, kNoDeadline, error);
    detail::Failure gone;
    if (!send_all(client, outgoing.pieces(std::span(chunk.data(), n), error), kNoDeadline, gone) ||
        error || n == 0)
      break;
    relayed += n;
  }
  stream.close();
  ::shutdown(client, SHUT_RDWR);  // ends the reading thread's recv
  up.join();
  return relayed;
}

}  // namespace adbwire::daemon
