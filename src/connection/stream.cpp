#include "adbwire/stream.hpp"

#include <array>

#include "connection/bounded_output.hpp"
#include "connection/stream_backend.hpp"

namespace adbwire {

Stream::Stream() noexcept = default;

Stream::Stream(std::unique_ptr<StreamBackend> backend, std::chrono::milliseconds default_timeout,
               std::size_t read_all_limit) noexcept
    : backend_(std::move(backend)),
      default_timeout_(default_timeout),
      read_all_limit_(read_all_limit) {}

Stream::Stream(Stream&&) noexcept = default;

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    close();
    backend_ = std::move(other.backend_);
    default_timeout_ = other.default_timeout_;
    read_all_limit_ = other.read_all_limit_;
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

std::string read_to_end(StreamBackend* backend, std::size_t limit, Deadline deadline,
                        detail::Failure& failure) {
  std::string out;
  if (!backend) {
    failure = closed_stream();
    return out;
  }
  OutputLimits limits;
  limits.command = limit;
  detail::BoundedOutput bounded(out, limits, &OutputLimits::command, "the stream");
  std::array<std::uint8_t, 64 * 1024> buffer;
  while (const std::size_t n = backend->read_some(buffer, deadline, failure)) {
    if (!bounded.append(std::span(buffer.data(), n), failure)) {
      backend->close();
      break;
    }
  }
  return out;
}

}  // namespace

std::size_t Stream::read_some(std::span<std::uint8_t> buffer, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return read_some_into(buffer, deadline, f); });
}

std::size_t Stream::read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                              std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return read_some_into(buffer, deadline, f); });
}

std::size_t Stream::read_some_into(std::span<std::uint8_t> buffer, Deadline deadline,
                                   detail::Failure& failure) {
  if (!backend_) {
    failure = closed_stream();
    return 0;
  }
  return backend_->read_some(buffer, resolve(deadline), failure);
}

std::size_t Stream::read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max,
                               Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return read_chunk_into(chunk, max, deadline, f); });
}

std::size_t Stream::read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max, Deadline deadline,
                               std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return read_chunk_into(chunk, max, deadline, f); });
}

std::size_t Stream::read_chunk_into(std::vector<std::uint8_t>& chunk, std::size_t max,
                                    Deadline deadline, detail::Failure& failure) {
  if (!backend_) {
    chunk.clear();
    failure = closed_stream();
    return 0;
  }
  return backend_->read_chunk(chunk, max, resolve(deadline), failure);
}

std::string Stream::read_all(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) {
    return read_to_end(backend_.get(), read_all_limit_, resolve(deadline), f);
  });
}

std::string Stream::read_all(Deadline deadline, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) {
    return read_to_end(backend_.get(), read_all_limit_, resolve(deadline), f);
  });
}

void Stream::write(std::span<const std::uint8_t> data, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { write_from(data, deadline, f); });
}

void Stream::write(std::span<const std::uint8_t> data, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { write_from(data, deadline, f); });
}

void Stream::write_from(std::span<const std::uint8_t> data, Deadline deadline,
                        detail::Failure& failure) {
  if (!backend_) {
    failure = closed_stream();
    return;
  }
  backend_->write(data, resolve(deadline), failure);
}

void Stream::close() noexcept {
  if (backend_) backend_->close();
}

bool Stream::is_open() const noexcept { return backend_ && backend_->is_open(); }

}  // namespace adbwire
