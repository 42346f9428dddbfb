#include "transport/tcp_connect.hpp"

#include <array>
#include <asio/connect.hpp>
#include <asio/steady_timer.hpp>

namespace adbwire::transport {

TcpConnectResult connect_with_deadline(asio::io_context& io, asio::ip::tcp::socket& socket,
                                       const std::string& host, std::uint16_t port,
                                       Deadline deadline) {
  using Outcome = TcpConnectResult::Outcome;
  asio::ip::tcp::resolver resolver(io);
  asio::steady_timer timer(io, deadline);
  TcpConnectResult result;
  bool timed_out = false;
  bool timer_done = false;
  bool connect_done = false;

  timer.async_wait([&](const std::error_code& error) {
    timer_done = true;
    if (error) return;
    timed_out = true;
    resolver.cancel();
    std::error_code ignored;
    socket.close(ignored);
  });
  const auto on_connect = [&](const std::error_code& error, const asio::ip::tcp::endpoint&) {
    result.outcome = error == asio::error::connection_refused ? Outcome::refused
                     : error                                  ? Outcome::failed
                                                              : Outcome::connected;
    result.error = error;
    connect_done = true;
    timer.cancel();
  };
  std::error_code not_literal;
  const asio::ip::address literal = asio::ip::make_address(host, not_literal);
  if (!not_literal) {
    const std::array endpoints{asio::ip::tcp::endpoint(literal, port)};
    asio::async_connect(socket, endpoints, on_connect);
  } else {
    resolver.async_resolve(
        host, std::to_string(port),
        [&](const std::error_code& error, asio::ip::tcp::resolver::results_type results) {
          if (error) {
            result = {Outcome::unresolved, error};
            connect_done = true;
            timer.cancel();
            return;
          }
          asio::async_connect(socket, results, on_connect);
        });
  }
  // Every handler above refers to these locals: run until both chains have finished.
  while (!(timer_done && connect_done)) io.run_one();
  if (timed_out) result = {Outcome::timed_out, {}};
  return result;
}

}  // namespace adbwire::transport
