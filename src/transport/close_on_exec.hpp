// Sockets that do not leak into programs started meanwhile. asio opens and accepts without
// SOCK_CLOEXEC, so a process that embeds adbwire and starts another (an agent running a tool,
// our CLI starting its session daemon) would hand it the device's connection and our listening
// ports: the child keeps a dead device's port taken and a connection open after we closed it.
// AOSP adb opens every descriptor close-on-exec for the same reason. Internal.
#pragma once

#include <asio/ip/tcp.hpp>
#include <system_error>

namespace adbwire::transport {

// Opens socket for protocol close-on-exec from the start (SOCK_CLOEXEC: no window for a fork).
void open_close_on_exec(asio::ip::tcp::socket& socket, const asio::ip::tcp& protocol,
                        std::error_code& error);
void open_close_on_exec(asio::ip::tcp::acceptor& acceptor, const asio::ip::tcp& protocol,
                        std::error_code& error);
// For a socket asio made (an accepted one): FD_CLOEXEC as soon as we hold it. A fork on another
// thread between accept and this call can still inherit it; asio offers no accept4.
void set_close_on_exec(asio::ip::tcp::socket& socket, std::error_code& error);

}  // namespace adbwire::transport
