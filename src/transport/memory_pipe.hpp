// An in-memory transport pair: what one end writes the other reads. Lets the connection
// runtime be tested against a device-role Session with no sockets.
#pragma once

#include <asio/io_context.hpp>
#include <memory>
#include <string>
#include <utility>

#include "transport/transport.hpp"

namespace adbwire::transport {

// Two connected ends; the first runs its handlers on `first_io`, the second on
// `second_io` (the same or different io_contexts, possibly on different threads).
// Buffers are unbounded: the ADB session above provides the flow control. close() on
// either end makes pending and later reads of the other end fail with errc::closed once
// the bytes already written are read.
std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> make_memory_pipe(
    asio::io_context& first_io, asio::io_context& second_io, const std::string& description);

}  // namespace adbwire::transport
