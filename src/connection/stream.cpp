#include "adbwire/stream.hpp"

#include <array>

#include "connection/stream_backend.hpp"

namespace adbwire {

Stream::Stream() noexcept = default;

Stream::Stream(std::unique_ptr<detail::StreamBackend> backend,
               std::chrono::milliseconds default_timeout) noexcept
    : backend_(std::move(backend)), default_timeout_(default_timeout) {}

Stream::Stream(Stream&&) noexcept = default;

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    close();
    backend_ = std::move(other.backend_);
    default_timeout_ = other.default_timeout_;
  }
  return *this;
}

Stream::~Stream() { close(); }

Deadline Stream::resolve(Deadline deadline) const noexcept {
  return deadline == kDefaultDeadline ? deadline_after(default_timeout_) : deadline;
}

namespace {

detail::Failure closed_stream() {
  detail::Failure failure;
  failure.set(errc::closed, "the stream is empty or was moved from");
  return failure;
}

std::string read_to_end(detail::StreamBackend* backend, Deadline deadline,
                        detail::Failure& failure) {
  std::string out;
  if (!backend) {
    failure = closed_stream();
    return out;
  }
  std::array<std::uint8_t, 64 * 1024> buffer;
  while (const std::size_t n = backend->read_some(buffer, deadline, failure)) {
    out.append(reinterpret_cast<const char*>(buffer.data()), n);
  }
  return out;
}

}  // namespace

std::size_t Stream::read_some(std::span<std::uint8_t> buffer, Deadline deadline) {
  detail::Failure failure = backend_ ? detail::Failure{} : closed_stream();
  const std::size_t n = backend_ ? backend_->read_some(buffer, resolve(deadline), failure) : 0;
  failure.throw_if_failed();
  return n;
}

std::size_t Stream::read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                              std::error_code& error) {
  detail::Failure failure = backend_ ? detail::Failure{} : closed_stream();
  const std::size_t n = backend_ ? backend_->read_some(buffer, resolve(deadline), failure) : 0;
  error = failure.code;
  return n;
}

std::string Stream::read_all(Deadline deadline) {
  detail::Failure failure;
  std::string out = read_to_end(backend_.get(), resolve(deadline), failure);
  failure.throw_if_failed();
  return out;
}

std::string Stream::read_all(Deadline deadline, std::error_code& error) {
  detail::Failure failure;
  std::string out = read_to_end(backend_.get(), resolve(deadline), failure);
  error = failure.code;
  return out;
}

void Stream::write(std::span<const std::uint8_t> data, Deadline deadline) {
  detail::Failure failure = backend_ ? detail::Failure{} : closed_stream();
  if (backend_) backend_->write(data, resolve(deadline), failure);
  failure.throw_if_failed();
}

void Stream::write(std::span<const std::uint8_t> data, Deadline deadline, std::error_code& error) {
  detail::Failure failure = backend_ ? detail::Failure{} : closed_stream();
  if (backend_) backend_->write(data, resolve(deadline), failure);
  error = failure.code;
}

void Stream::close() noexcept {
  if (backend_) backend_->close();
}

bool Stream::is_open() const noexcept { return backend_ && backend_->is_open(); }

}  // namespace adbwire
