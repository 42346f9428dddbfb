// A TCP connect bounded by a deadline, shared by the direct transport and the adb server
// client. Internal to the library.
#pragma once

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <system_error>

#include "adbwire/deadline.hpp"

namespace adbwire::transport {

// How the connect ended; error holds the system's reason for unresolved and failed.
struct TcpConnectResult {
  enum class Outcome { connected, timed_out, unresolved, refused, failed };
  Outcome outcome = Outcome::failed;
  std::error_code error;
};

// Connects socket (made on io) to host:port, giving up at deadline. An address literal is
// connected to as is; only a name is looked up, because asio runs every async lookup on a
// thread of its own, which cost a thread start per command through the adb server. Runs io
// until the connect and its timer have both finished; the caller restarts io if it runs it
// again.
TcpConnectResult connect_with_deadline(asio::io_context& io, asio::ip::tcp::socket& socket,
                                       const std::string& host, std::uint16_t port,
                                       Deadline deadline);

}  // namespace adbwire::transport
