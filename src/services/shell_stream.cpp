// ShellStream: a shell with its stdin open, on the shell channel (connection/shell_channel.hpp).
#include "adbwire/shell_stream.hpp"

#include <cstdio>
#include <mutex>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"
#include "base/mutex.hpp"
#include "connection/shell_channel.hpp"

namespace adbwire {

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
    auto opener = device.opener();
    if (!opener) {
      failure = detail::moved_from_device();
      return nullptr;
    }
    auto impl = std::make_unique<Impl>();
    impl->default_timeout = device.command_timeout();
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
