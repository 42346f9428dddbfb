// TCP transport over asio: adbd's TCP port (5555, `adb tcpip`) or the virtual device.
#pragma once

#include <asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"
#include "transport/transport.hpp"

namespace adbwire::transport {

// Resolves host and connects, with TCP_NODELAY (every ADB message is latency bound).
// Runs handlers of `io` on the calling thread until connected, so call it before any other
// thread runs `io` (a work guard on `io` is fine). Returns nullptr with failure set:
// connection_refused (nothing listens: names host:port and how to start a device side),
// timeout (deadline passed), not_found (the host name does not resolve), io_error
// (anything else the OS reports).
std::unique_ptr<Transport> connect_tcp(asio::io_context& io, const std::string& host,
                                       std::uint16_t port, Deadline deadline,
                                       detail::Failure& failure);

}  // namespace adbwire::transport
