// ShellStream, and the shell channel Device::shell and exec's fallback share.
#include "adbwire/shell_stream.hpp"

#include <cstdio>
#include <mutex>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"
#include "base/mutex.hpp"
#include "connection/device_access.hpp"
#include "services/shell_channel.hpp"

namespace adbwire {
namespace detail {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& data) { return data; }

}  // namespace

std::string shell_service(const ShellOptions& options, bool v2) {
  if (!v2) return "shell:" + options.command;
  std::string service = "shell,v2";
  if (!options.term.empty()) service += ",TERM=" + options.term;
  service += options.pty ? ",pty:" : ",raw:";
  return service + options.command;
}

ShellChannel open_shell(StreamOpener& opener, const ShellOptions& options, Deadline deadline,
                        Failure& failure) {
  ShellChannel channel;
  channel.v2 = options.shell_protocol && opener.can_use_feature("shell_v2");
  channel.command = options.command;
  channel.stream = opener.open(shell_service(options, channel.v2), deadline, failure);
  return channel;
}

int read_shell_output(ShellChannel& channel, const OutputHandler& on_stdout,
                      const OutputHandler& on_stderr, Deadline deadline, Failure& failure) {
  std::vector<std::uint8_t> buffer(kReadSize);
  if (!channel.v2) {
    // v1: stdout and stderr arrive merged, and nothing reports the exit status.
    while (const std::size_t n = channel.stream->read_some(buffer, deadline, failure)) {
      if (on_stdout) on_stdout(std::span<const std::uint8_t>(buffer.data(), n));
      if (failure) break;  // a handler stopped the command (a bound)
    }
    return -1;
  }
  protocol::ShellReader reader;
  std::vector<protocol::ShellPiece> pieces;
  int exit_code = -1;
  while (const std::size_t n = channel.stream->read_some(buffer, deadline, failure)) {
    pieces.clear();
    if (reader.feed(std::span<const std::uint8_t>(buffer.data(), n), pieces)) {
      failure.set(errc::protocol_error, "malformed shell protocol output for '" + channel.command +
                                            "': " + reader.error_detail());
      return -1;
    }
    for (const protocol::ShellPiece& piece : pieces) {
      switch (piece.id) {
        case protocol::ShellPacketId::stdout_data:
          if (on_stdout) on_stdout(bytes_of(piece.data));
          break;
        case protocol::ShellPacketId::stderr_data:
          if (on_stderr) on_stderr(bytes_of(piece.data));
          break;
        case protocol::ShellPacketId::exit_status:
          exit_code = piece.data.front();
          break;
        default:
          break;  // a device has no business sending stdin or window sizes: ignored, as adb
      }
      if (failure) return -1;  // a handler stopped the command (a bound)
    }
  }
  if (failure) return -1;
  if (exit_code < 0) {
    failure.set(errc::protocol_error,
                "the shell stream for '" + channel.command +
                    "' ended without an exit status (the device hung up on it)");
  }
  return exit_code;
}

}  // namespace detail

struct ShellStream::Impl {
  detail::ShellChannel channel;
  std::chrono::milliseconds default_timeout{0};
  detail::Mutex write_mutex;
  std::vector<std::uint8_t> packet ADBWIRE_GUARDED_BY(write_mutex);

  Deadline resolve(Deadline deadline) const {
    return deadline == kDefaultDeadline ? deadline_after(default_timeout) : deadline;
  }

  // One whole packet (v2) or the raw bytes (v1), never interleaved with another writer's.
  void send(protocol::ShellPacketId id, std::span<const std::uint8_t> data, Deadline deadline,
            detail::Failure& failure) {
    detail::MutexLock lock(write_mutex);
    if (!channel.v2) {
      channel.stream->write(data, resolve(deadline), failure);
      return;
    }
    packet.clear();
    protocol::append_shell_packet(packet, id, data);
    channel.stream->write(packet, resolve(deadline), failure);
  }

  static std::unique_ptr<Impl> open(Device& device, const ShellOptions& options, Deadline deadline,
                                    detail::Failure& failure) {
    auto opener = detail::DeviceAccess::opener(device);
    if (!opener) {
      failure = detail::moved_from_device();
      return nullptr;
    }
    auto impl = std::make_unique<Impl>();
    impl->default_timeout = detail::DeviceAccess::command_timeout(device);
    impl->channel = detail::open_shell(*opener, options, impl->resolve(deadline), failure);
    if (!impl->channel.stream) return nullptr;
    return impl;
  }

  int wait(const OutputHandler& on_stdout, const OutputHandler& on_stderr, Deadline deadline,
           detail::Failure& failure) {
    try {
      return detail::read_shell_output(channel, on_stdout, on_stderr, resolve(deadline), failure);
    } catch (...) {
      channel.stream->close();
      throw;
    }
  }
};

namespace {

detail::Failure empty_shell() {
  detail::Failure failure;
  failure.set(errc::closed, "the shell stream is empty or was moved from");
  return failure;
}

}  // namespace

ShellStream::ShellStream() noexcept = default;
ShellStream::ShellStream(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
ShellStream::ShellStream(ShellStream&&) noexcept = default;
ShellStream& ShellStream::operator=(ShellStream&& other) noexcept {
  if (this != &other) {
    close();
    impl_ = std::move(other.impl_);
  }
  return *this;
}
ShellStream::~ShellStream() { close(); }

ShellStream ShellStream::open(Device& device, const ShellOptions& options, Deadline deadline) {
  detail::Failure failure;
  auto impl = Impl::open(device, options, deadline, failure);
  failure.throw_if_failed();
  return ShellStream(std::move(impl));
}

ShellStream ShellStream::open(Device& device, const ShellOptions& options, Deadline deadline,
                              std::error_code& error) {
  detail::Failure failure;
  auto impl = Impl::open(device, options, deadline, failure);
  detail::report(std::move(failure), error);
  return ShellStream(std::move(impl));
}

bool ShellStream::shell_protocol() const noexcept { return impl_ && impl_->channel.v2; }

void ShellStream::write_stdin(std::span<const std::uint8_t> data, Deadline deadline) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  if (impl_) impl_->send(protocol::ShellPacketId::stdin_data, data, deadline, failure);
  failure.throw_if_failed();
}

void ShellStream::write_stdin(std::span<const std::uint8_t> data, Deadline deadline,
                              std::error_code& error) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  if (impl_) impl_->send(protocol::ShellPacketId::stdin_data, data, deadline, failure);
  detail::report(std::move(failure), error);
}

bool ShellStream::close_stdin(Deadline deadline) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const bool v2 = impl_ && impl_->channel.v2;
  if (v2) impl_->send(protocol::ShellPacketId::close_stdin, {}, deadline, failure);
  failure.throw_if_failed();
  return v2;
}

bool ShellStream::close_stdin(Deadline deadline, std::error_code& error) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const bool v2 = impl_ && impl_->channel.v2;
  if (v2) impl_->send(protocol::ShellPacketId::close_stdin, {}, deadline, failure);
  detail::report(std::move(failure), error);
  return v2 && !error;
}

bool ShellStream::resize(const WindowSize& size, Deadline deadline) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const bool v2 = impl_ && impl_->channel.v2;
  if (v2)
    impl_->send(protocol::ShellPacketId::window_size, protocol::encode_window_size(size), deadline,
                failure);
  failure.throw_if_failed();
  return v2;
}

bool ShellStream::resize(const WindowSize& size, Deadline deadline, std::error_code& error) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const bool v2 = impl_ && impl_->channel.v2;
  if (v2)
    impl_->send(protocol::ShellPacketId::window_size, protocol::encode_window_size(size), deadline,
                failure);
  detail::report(std::move(failure), error);
  return v2 && !error;
}

int ShellStream::wait(const OutputHandler& on_stdout, const OutputHandler& on_stderr,
                      Deadline deadline) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const int exit_code = impl_ ? impl_->wait(on_stdout, on_stderr, deadline, failure) : -1;
  failure.throw_if_failed();
  return exit_code;
}

int ShellStream::wait(const OutputHandler& on_stdout, const OutputHandler& on_stderr,
                      Deadline deadline, std::error_code& error) {
  detail::Failure failure = impl_ ? detail::Failure{} : empty_shell();
  const int exit_code = impl_ ? impl_->wait(on_stdout, on_stderr, deadline, failure) : -1;
  detail::report(std::move(failure), error);
  return exit_code;
}

void ShellStream::close() noexcept {
  if (impl_ && impl_->channel.stream) impl_->channel.stream->close();
}

}  // namespace adbwire
