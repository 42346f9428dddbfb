#include "transport/close_on_exec.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace adbwire::transport {
namespace {

int open_socket(const asio::ip::tcp& protocol, std::error_code& error) {
  const int fd = ::socket(protocol.family(), protocol.type() | SOCK_CLOEXEC, protocol.protocol());
  if (fd < 0) error.assign(errno, std::system_category());
  return fd;
}

template <typename Socket>
void assign(Socket& socket, const asio::ip::tcp& protocol, std::error_code& error) {
  const int fd = open_socket(protocol, error);
  if (fd < 0) return;
  socket.assign(protocol, fd, error);
  if (error) ::close(fd);
}

}  // namespace

void open_close_on_exec(asio::ip::tcp::socket& socket, const asio::ip::tcp& protocol,
                        std::error_code& error) {
  assign(socket, protocol, error);
}

void open_close_on_exec(asio::ip::tcp::acceptor& acceptor, const asio::ip::tcp& protocol,
                        std::error_code& error) {
  assign(acceptor, protocol, error);
}

void set_close_on_exec(asio::ip::tcp::socket& socket, std::error_code& error) {
  const int fd = socket.native_handle();
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0 || ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
    error.assign(errno, std::system_category());
}

}  // namespace adbwire::transport
