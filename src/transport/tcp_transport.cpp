#include "transport/tcp_transport.hpp"

#include <asio/ip/tcp.hpp>
#include <asio/write.hpp>
#include <string>
#include <utility>

#include "transport/tcp_connect.hpp"

namespace adbwire::transport {
namespace {

class TcpTransport final : public Transport {
 public:
  TcpTransport(asio::ip::tcp::socket socket, std::string description)
      : socket_(std::move(socket)), description_(std::move(description)) {}

  ~TcpTransport() override { close(); }

  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override {
    socket_.async_read_some(asio::buffer(buffer.data(), buffer.size()), std::move(handler));
  }

  void async_write(std::span<const std::uint8_t> data, Handler handler) override {
    asio::async_write(socket_, asio::buffer(data.data(), data.size()), std::move(handler));
  }

  void close() noexcept override {
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  std::string description() const override { return description_; }

 private:
  asio::ip::tcp::socket socket_;
  std::string description_;
};

std::string host_port(const std::string& host, std::uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

std::unique_ptr<Transport> connect_tcp(asio::io_context& io, const std::string& host,
                                       std::uint16_t port, Deadline deadline,
                                       detail::Failure& failure) {
  const std::string where = host_port(host, port);
  asio::ip::tcp::socket socket(io);
  const TcpConnectResult connected = connect_with_deadline(io, socket, host, port, deadline);
  switch (connected.outcome) {
    case TcpConnectResult::Outcome::connected:
      break;
    case TcpConnectResult::Outcome::timed_out:
      failure.set(errc::timeout, "TCP connect to " + where +
                                     " did not complete before the deadline "
                                     "(is the host reachable? check the address and any firewall)");
      return nullptr;
    case TcpConnectResult::Outcome::unresolved:
      failure.set(errc::not_found,
                  "cannot resolve host '" + host + "': " + connected.error.message());
      return nullptr;
    case TcpConnectResult::Outcome::refused:
      failure.set(
          errc::connection_refused,
          "nothing listens at " + where +
              " (connection refused): start a device side there "
              "(`adbwire vdevice`, or `adb tcpip 5555` on a USB-connected phone) or fix the port");
      return nullptr;
    case TcpConnectResult::Outcome::failed:
      failure.set(errc::io_error,
                  "TCP connect to " + where + " failed: " + connected.error.message());
      return nullptr;
  }
  std::error_code option_error;
  socket.set_option(asio::ip::tcp::no_delay(true), option_error);
  if (option_error) {
    failure.set(errc::io_error,
                "cannot set TCP_NODELAY on the socket to " + where + ": " + option_error.message());
    return nullptr;
  }
  return std::make_unique<TcpTransport>(std::move(socket), "tcp:" + where);
}

}  // namespace adbwire::transport
