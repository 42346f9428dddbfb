// The transport seam: one small asynchronous byte-stream interface beneath the connection
// runtime. TCP implements it today; USB, the capture replayer and the in-memory test pipe
// implement the same four calls, so the runtime never knows which link it drives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <system_error>

namespace adbwire::transport {

// Completion handlers run on the io_context the transport was made for, never inline.
// The runtime keeps at most one read and one write outstanding and keeps the buffers
// alive until their handler ran. Not thread safe: call from the io_context's thread.
class Transport {
 public:
  using Handler = std::function<void(const std::error_code& error, std::size_t bytes)>;

  virtual ~Transport() = default;

  // Reads at least one byte. The peer ending the link is an error (asio::error::eof or
  // adbwire::errc::closed); so is close() while the read waits (operation_aborted).
  virtual void async_read_some(std::span<std::uint8_t> buffer, Handler handler) = 0;

  // Writes every byte of data (handler gets data.size()) or fails.
  virtual void async_write(std::span<const std::uint8_t> data, Handler handler) = 0;

  // Ends the link; outstanding handlers still run, with an error. Idempotent.
  virtual void close() noexcept = 0;

  // Where the link goes, for error messages: "tcp:127.0.0.1:5555".
  virtual std::string description() const = 0;
};

}  // namespace adbwire::transport
