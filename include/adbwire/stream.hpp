// One byte stream to a device service ("exec:ls", "sync:", "shell,v2,raw:…"), opened with
// Device::open. Streams of one device share its connection; each has its own flow control.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/output_limits.hpp"

namespace adbwire {

// One stream of some backend (the connection runtime, an adb server's socket, the CLI daemon).
// Internal (src/connection/stream_backend.hpp): outside the library it is only a handle.
class StreamBackend;

namespace detail {
struct Failure;
}  // namespace detail

// Move-only handle; the destructor closes the stream. Blocking calls wait until done, the
// deadline passes (errc::timeout; the stream stays usable, nothing was lost) or the stream
// fails. Errors common to every call: device_offline (the connection dropped: every waiting
// call wakes at once), closed (close() was called, or the Device was closed).
// Thread safety: one thread may read while another writes; two concurrent readers (or two
// writers) need external locking. close() may be called from any thread at any time.
// ADB streams have no half-close: close() ends both directions.
class Stream {
 public:
  // An empty stream: every call fails with errc::closed.
  Stream() noexcept;
  // Made by Device::open (and the layers built on it) from a backend the library opened;
  // default_timeout resolves kDefaultDeadline; read_all_limit bounds read_all
  // (Device::output_limits().command).
  Stream(std::unique_ptr<StreamBackend> backend, std::chrono::milliseconds default_timeout,
         std::size_t read_all_limit = OutputLimits{}.command) noexcept;
  Stream(Stream&&) noexcept;
  Stream& operator=(Stream&&) noexcept;
  ~Stream();

  // Waits for data and copies up to buffer.size() bytes; returns how many, 0 once the device
  // has ended the stream (and every byte it sent was read); a large buffer takes as much as
  // has arrived. Received data is acknowledged to the device as it arrives while less than one
  // max payload waits unread ahead of it, and past that only as it is read here: an unread
  // stream holds at most about two payloads (with delayed_ack: one receive window more) and
  // the device waits (backpressure), while a reader that keeps up never makes it wait.
  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline = kDefaultDeadline);
  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline, std::error_code& error);

  // As read_some, without a copy where the connection allows: returns n, the data being chunk's
  // first n bytes. A received payload is handed over whole (chunk is then exactly it, and may
  // hold more than max bytes, up to the connection's max payload); other backends read up to
  // max bytes into chunk, reusing its memory. chunk's old content is dropped either way.
  std::size_t read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max,
                         Deadline deadline = kDefaultDeadline);
  std::size_t read_chunk(std::vector<std::uint8_t>& chunk, std::size_t max, Deadline deadline,
                         std::error_code& error);

  // Reads until the device ends the stream. Memory grows with the output, up to the
  // Device's output_limits().command bytes: past it errc::limit_exceeded and the stream is
  // closed. Use read_some for output of unknown size. On error the bytes read so far are
  // returned with the error set.
  std::string read_all(Deadline deadline = kDefaultDeadline);
  std::string read_all(Deadline deadline, std::error_code& error);

  // Sends all of data, blocking while the connection's send queue for this stream is full
  // (the device has not acknowledged earlier data). Returns once every byte is queued for
  // sending. Errors also: closed when the device already ended the stream. On timeout or
  // error an unknown prefix of data may have been sent.
  void write(std::span<const std::uint8_t> data, Deadline deadline = kDefaultDeadline);
  void write(std::span<const std::uint8_t> data, Deadline deadline, std::error_code& error);

  // Ends the stream in both directions (queued data is still sent first) and wakes a reader
  // or writer blocked on it with errc::closed. Idempotent, never blocks.
  void close() noexcept;

  // False for an empty or closed stream.
  bool is_open() const noexcept;

 private:
  Deadline resolve(Deadline deadline) const noexcept;
  std::size_t read_some_into(std::span<std::uint8_t> buffer, Deadline deadline,
                             detail::Failure& failure);
  std::size_t read_chunk_into(std::vector<std::uint8_t>& chunk, std::size_t max, Deadline deadline,
                              detail::Failure& failure);
  void write_from(std::span<const std::uint8_t> data, Deadline deadline, detail::Failure& failure);

  std::unique_ptr<StreamBackend> backend_;
  std::chrono::milliseconds default_timeout_{0};
  std::size_t read_all_limit_ = OutputLimits{}.command;
};

}  // namespace adbwire
