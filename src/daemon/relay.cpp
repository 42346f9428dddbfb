#include "daemon/relay.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <thread>
#include <vector>

#include "adbwire/error_detail.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::daemon {
namespace {

constexpr std::size_t kRelaySize = 256 * 1024;

}  // namespace

void relay(Stream& stream, int client, std::span<const std::uint8_t> early, RelayFraming framing) {
  if (!early.empty()) {
    std::error_code error;
    stream.write(early, kNoDeadline, error);
  }
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
  std::vector<std::uint8_t> buffer(kRelaySize);
  std::vector<std::uint8_t> frames;
  for (;;) {
    std::error_code error;
    const std::size_t n = stream.read_some(buffer, kNoDeadline, error);
    const std::span<const std::uint8_t> data(buffer.data(), n);
    std::span<const std::uint8_t> out = data;
    if (framing == RelayFraming::framed) {
      frames.clear();
      if (error) {
        append_frame(frames, FrameKind::fail, failure_payload(error, last_error_detail()));
      } else if (n == 0) {
        append_frame(frames, FrameKind::done);
      } else {
        append_frame(frames, FrameKind::data, data);
      }
      out = frames;
    }
    detail::Failure gone;
    if (!send_all(client, out, kNoDeadline, gone) || error || n == 0) break;
  }
  stream.close();
  ::shutdown(client, SHUT_RDWR);  // ends the reading thread's recv
  up.join();
}

}  // namespace adbwire::daemon
