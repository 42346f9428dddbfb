#include "transport/tcp_connect.hpp"

#include <asio/steady_timer.hpp>
#include <functional>
#include <vector>

#include "transport/close_on_exec.hpp"

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
  const auto on_connect = [&](const std::error_code& error) {
    result.outcome = error == asio::error::connection_refused ? Outcome::refused
                     : error                                  ? Outcome::failed
                                                              : Outcome::connected;
    result.error = error;
    connect_done = true;
    timer.cancel();
  };
  // Each endpoint in turn, as asio::async_connect tries them, on a socket opened close-on-exec
  // (asio's own range connect opens without it).
  std::vector<asio::ip::tcp::endpoint> endpoints;
  std::size_t next = 0;
  std::function<void()> try_next = [&] {
    std::error_code error;
    socket.close(error);
    open_close_on_exec(socket, endpoints[next].protocol(), error);
    if (error) {
      on_connect(error);
      return;
    }
    socket.async_connect(endpoints[next], [&](const std::error_code& failed) {
      if (failed && !timed_out && failed != asio::error::operation_aborted &&
          ++next < endpoints.size()) {
        try_next();
        return;
      }
      on_connect(failed);
    });
  };
  std::error_code not_literal;
  const asio::ip::address literal = asio::ip::make_address(host, not_literal);
  if (!not_literal) {
    endpoints.emplace_back(literal, port);
    try_next();
  } else {
    resolver.async_resolve(
        host, std::to_string(port),
        [&](const std::error_code& error, asio::ip::tcp::resolver::results_type results) {
          if (error || results.empty()) {
            result = {Outcome::unresolved, error ? error : asio::error::host_not_found};
            connect_done = true;
            timer.cancel();
            return;
          }
          for (const auto& entry : results) endpoints.push_back(entry.endpoint());
          try_next();
        });
  }
  // Every handler above refers to these locals: run until both chains have finished.
  while (!(timer_done && connect_done)) io.run_one();
  if (timed_out) result = {Outcome::timed_out, {}};
  return result;
}

}  // namespace adbwire::transport
