// One TCP connection to an adb server, driven by the calling thread: connect, smart-socket
// requests and replies, then raw bytes. Internal to the connection and server layers.
#pragma once

#include <array>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "adbwire/server_address.hpp"
#include "base/failure.hpp"

namespace adbwire::server {

// Each direction has its own io_context, run by whichever thread calls into that direction,
// so one thread may read while another writes (as Stream allows). A read or write that
// passes its deadline stays pending (nothing received is lost). shutdown() may be called
// from any thread. Otherwise not thread safe.
class ServerSocket {
 public:
  // Connects (TCP_NODELAY). Errors: connection_refused (no server: says how to start one
  // and names the direct alternative), timeout, not_found (host), io_error.
  static std::unique_ptr<ServerSocket> connect(const ServerAddress& address, Deadline deadline,
                                               detail::Failure& failure);
  ~ServerSocket();

  // Sends one request (hex4 + service). Errors: invalid_argument (too long), io errors.
  bool request(std::string_view service, Deadline deadline, detail::Failure& failure);
  // Reads the status; FAIL becomes failure with classify_failure's code and
  // "`what`: <server message>". protocol_error for garbage.
  bool expect_okay(std::string_view what, Deadline deadline, detail::Failure& failure);
  bool read_string(std::string& out, Deadline deadline, detail::Failure& failure);
  bool read_transport_id(std::uint64_t& out, Deadline deadline, detail::Failure& failure);
  // Raw bytes after the smart-socket phase: > 0, or 0 at end of stream (or with failure).
  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure);
  bool write(std::span<const std::uint8_t> data, Deadline deadline, detail::Failure& failure);

  // Ends both directions and wakes blocked calls (they fail with errc::closed). Thread safe.
  void shutdown() noexcept;
  bool is_shut_down() const noexcept { return shut_down_; }
  const std::string& where() const noexcept { return where_; }

 private:
  struct Side;
  ServerSocket(std::unique_ptr<Side> reader, std::unique_ptr<Side> writer, std::string where);

  // Reads more bytes into inbox_; false with failure set (closed, timeout, eof mid-reply).
  bool receive(Deadline deadline, detail::Failure& failure, bool eof_is_error);
  template <class Read>
  bool pull(Read read, Deadline deadline, detail::Failure& failure);

  std::unique_ptr<Side> reader_;
  std::unique_ptr<Side> writer_;
  const std::string where_;
  protocol::SmartReplyReader replies_;
  // Target of the one outstanding read; stays put while a read that timed out is pending.
  std::array<std::uint8_t, 64 * 1024> inbox_{};
  std::vector<std::uint8_t> raw_;  // received but not yet handed to read_some
  std::size_t raw_used_ = 0;
  bool eof_ = false;
  std::atomic<bool> shut_down_{false};
};

}  // namespace adbwire::server
