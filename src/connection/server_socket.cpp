#include "connection/server_socket.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <asio/write.hpp>
#include <cstring>
#include <utility>

#include "transport/tcp_connect.hpp"

namespace adbwire::connection {

using Result = protocol::SmartReplyReader::Result;

struct ServerSocket::Side {
  asio::io_context io;
  asio::ip::tcp::socket socket{io};
  bool pending = false;  // an operation is outstanding on socket
  bool done = false;     // its handler ran
  std::error_code error;
  std::size_t bytes = 0;

  // Runs handlers until the pending operation finished or the deadline passed.
  bool run_until_done(Deadline deadline) {
    while (!done) {
      if (io.stopped()) io.restart();
      if (deadline == kNoDeadline) {
        io.run_one();
      } else if (io.run_one_until(deadline) == 0 && Clock::now() >= deadline) {
        return done;
      }
    }
    return true;
  }

  asio::ip::tcp::socket::native_handle_type handle() { return socket.native_handle(); }
};

namespace {

std::string refused_message(const std::string& where) {
  return "no adb server at " + where +
         "; start one with `adb start-server`, or connect directly: -s tcp:HOST:PORT";
}

}  // namespace

ServerSocket::ServerSocket(std::unique_ptr<Side> reader, std::unique_ptr<Side> writer,
                           std::string where)
    : reader_(std::move(reader)), writer_(std::move(writer)), where_(std::move(where)) {}

ServerSocket::~ServerSocket() = default;

std::unique_ptr<ServerSocket> ServerSocket::connect(const ServerAddress& address, Deadline deadline,
                                                    detail::Failure& failure) {
  const std::string where = to_string(address);
  auto reader = std::make_unique<Side>();
  const transport::TcpConnectResult connected = transport::connect_with_deadline(
      reader->io, reader->socket, address.host, address.port, deadline);
  reader->io.restart();
  switch (connected.outcome) {
    case transport::TcpConnectResult::Outcome::connected:
      break;
    case transport::TcpConnectResult::Outcome::timed_out:
      failure.set(errc::timeout, "connecting to the adb server at " + where +
                                     " did not complete before the deadline (is the host "
                                     "reachable? check the address and any firewall)");
      return nullptr;
    case transport::TcpConnectResult::Outcome::unresolved:
      failure.set(errc::not_found, "cannot resolve adb server host '" + address.host +
                                       "': " + connected.error.message());
      return nullptr;
    case transport::TcpConnectResult::Outcome::refused:
      failure.set(errc::connection_refused, refused_message(where));
      return nullptr;
    case transport::TcpConnectResult::Outcome::failed:
      failure.set(errc::io_error, "connecting to the adb server at " + where +
                                      " failed: " + connected.error.message());
      return nullptr;
  }
  std::error_code error;
  reader->socket.set_option(asio::ip::tcp::no_delay(true), error);
  // The writing direction gets its own descriptor and io_context, so a writer never runs
  // the reader's handlers.
  auto writer = std::make_unique<Side>();
  const int duplicate = error ? -1 : ::dup(reader->handle());
  if (duplicate < 0) {
    failure.set(errc::io_error, "cannot set up the socket to the adb server at " + where + ": " +
                                    (error ? error.message() : std::string(std::strerror(errno))));
    return nullptr;
  }
  const auto protocol = reader->socket.local_endpoint(error).protocol();
  writer->socket.assign(protocol, duplicate, error);
  if (error) {
    ::close(duplicate);
    failure.set(errc::io_error,
                "cannot set up the socket to the adb server at " + where + ": " + error.message());
    return nullptr;
  }
  return std::unique_ptr<ServerSocket>(
      new ServerSocket(std::move(reader), std::move(writer), where));
}

void ServerSocket::shutdown() noexcept {
  if (shut_down_.exchange(true)) return;
  // shutdown(2) on the shared description wakes a pending read (end of stream) and write
  // (EPIPE) in whatever thread waits on them; the descriptors stay valid until destruction.
  ::shutdown(reader_->handle(), SHUT_RDWR);
}

bool ServerSocket::receive(Deadline deadline, detail::Failure& failure, bool eof_is_error) {
  Side& side = *reader_;
  if (shut_down_) {
    failure.set(errc::closed, "the stream through the adb server at " + where_ + " was closed");
    return false;
  }
  if (eof_) {
    if (eof_is_error)
      failure.set(errc::protocol_error, "the adb server at " + where_ + " hung up mid-reply");
    return false;
  }
  if (!side.pending) {
    side.pending = true;
    side.done = false;
    side.socket.async_read_some(asio::buffer(inbox_),
                                [&side](const std::error_code& error, std::size_t bytes) {
                                  side.done = true;
                                  side.error = error;
                                  side.bytes = bytes;
                                });
  }
  if (!side.run_until_done(deadline)) {
    failure.set(errc::timeout, "the adb server at " + where_ + " did not answer in time");
    return false;
  }
  side.pending = false;
  if (shut_down_) {
    failure.set(errc::closed, "the stream through the adb server at " + where_ + " was closed");
    return false;
  }
  if (side.error == asio::error::eof) {
    eof_ = true;
    if (eof_is_error)
      failure.set(errc::protocol_error, "the adb server at " + where_ + " hung up mid-reply");
    return false;
  }
  if (side.error) {
    failure.set(errc::device_offline, "the connection to the adb server at " + where_ +
                                          " broke: " + side.error.message());
    return false;
  }
  raw_.erase(raw_.begin(), raw_.begin() + static_cast<std::ptrdiff_t>(raw_used_));
  raw_used_ = 0;
  raw_.insert(raw_.end(), inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(side.bytes));
  return true;
}

template <class Read>
bool ServerSocket::pull(Read read, Deadline deadline, detail::Failure& failure) {
  for (;;) {
    if (raw_used_ < raw_.size()) {
      replies_.feed(std::span<const std::uint8_t>(raw_).subspan(raw_used_));
      raw_.clear();
      raw_used_ = 0;
    }
    switch (read()) {
      case Result::ready:
        return true;
      case Result::failed:
        failure.set(errc::protocol_error, replies_.error_detail());
        return false;
      case Result::need_more:
        break;
    }
    if (!receive(deadline, failure, true)) return false;
  }
}

bool ServerSocket::request(std::string_view service, Deadline deadline, detail::Failure& failure) {
  std::vector<std::uint8_t> bytes;
  if (protocol::append_smart_request(bytes, service)) {
    failure.set(errc::invalid_argument, "request too long for the adb server (" +
                                            std::to_string(service.size()) + " bytes, at most " +
                                            std::to_string(protocol::kMaxSmartString) + ")");
    return false;
  }
  return write(bytes, deadline, failure);
}

bool ServerSocket::expect_okay(std::string_view what, Deadline deadline, detail::Failure& failure) {
  protocol::SmartStatus status;
  if (!pull([&] { return replies_.read_status(status); }, deadline, failure)) return false;
  if (!status.okay) {
    failure.set(protocol::classify_failure(status.message),
                std::string(what) + ": " + status.message);
    return false;
  }
  // What follows a final OKAY may be device data already: hand it to read_some.
  const std::vector<std::uint8_t> rest = replies_.take_remaining();
  raw_.insert(raw_.begin() + static_cast<std::ptrdiff_t>(raw_used_), rest.begin(), rest.end());
  return true;
}

bool ServerSocket::read_string(std::string& out, Deadline deadline, detail::Failure& failure) {
  return pull([&] { return replies_.read_string(out); }, deadline, failure);
}

bool ServerSocket::read_transport_id(std::uint64_t& out, Deadline deadline,
                                     detail::Failure& failure) {
  return pull([&] { return replies_.read_transport_id(out); }, deadline, failure);
}

std::size_t ServerSocket::read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                                    detail::Failure& failure) {
  if (buffer.empty()) return 0;
  if (raw_used_ == raw_.size() && !receive(deadline, failure, false)) return 0;
  const std::size_t n = std::min(buffer.size(), raw_.size() - raw_used_);
  std::copy_n(raw_.begin() + static_cast<std::ptrdiff_t>(raw_used_), n, buffer.begin());
  raw_used_ += n;
  return n;
}

bool ServerSocket::write(std::span<const std::uint8_t> data, Deadline deadline,
                         detail::Failure& failure) {
  Side& side = *writer_;
  if (shut_down_) {
    failure.set(errc::closed, "the stream through the adb server at " + where_ + " was closed");
    return false;
  }
  side.pending = true;
  side.done = false;
  asio::async_write(side.socket, asio::buffer(data.data(), data.size()),
                    [&side](const std::error_code& error, std::size_t bytes) {
                      side.done = true;
                      side.error = error;
                      side.bytes = bytes;
                    });
  const bool finished = side.run_until_done(deadline);
  if (!finished) {
    // data belongs to the caller: the write must end before this returns.
    side.socket.cancel();
    side.run_until_done(kNoDeadline);
  }
  side.pending = false;
  if (!finished) {
    failure.set(errc::timeout, "sending to the adb server at " + where_ +
                                   " did not finish in time (the device is not reading)");
    return false;
  }
  if (shut_down_) {
    failure.set(errc::closed, "the stream through the adb server at " + where_ + " was closed");
    return false;
  }
  if (side.error) {
    failure.set(errc::device_offline, "the connection to the adb server at " + where_ +
                                          " broke: " + side.error.message());
    return false;
  }
  return true;
}

}  // namespace adbwire::connection
