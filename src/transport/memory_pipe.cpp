#include "transport/memory_pipe.hpp"

#include <algorithm>
#include <asio/error.hpp>
#include <asio/post.hpp>
#include <cstring>
#include <vector>

#include "adbwire/error.hpp"
#include "base/mutex.hpp"

namespace adbwire::transport {
namespace {

// Bytes travelling towards one end, and that end's waiting read.
struct Direction {
  asio::io_context* reader_io = nullptr;
  std::vector<std::uint8_t> bytes;
  bool writer_closed = false;
  bool reader_closed = false;
  std::span<std::uint8_t> read_buffer;
  Transport::Handler read_handler;
};

struct Shared {
  Shared(asio::io_context& first_io, asio::io_context& second_io) {
    towards[0].reader_io = &first_io;
    towards[1].reader_io = &second_io;
  }

  detail::Mutex mutex;
  Direction towards[2] ADBWIRE_GUARDED_BY(mutex);

  // Completes the waiting read of `to` (one of towards) when it can.
  void try_complete_read(Direction& to) ADBWIRE_REQUIRES(mutex) {
    if (!to.read_handler) return;
    std::error_code error;
    std::size_t n = 0;
    if (to.reader_closed) {
      error = asio::error::operation_aborted;
    } else if (!to.bytes.empty()) {
      n = std::min(to.read_buffer.size(), to.bytes.size());
      std::memcpy(to.read_buffer.data(), to.bytes.data(), n);
      to.bytes.erase(to.bytes.begin(), to.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    } else if (to.writer_closed) {
      error = make_error_code(errc::closed);
    } else {
      return;
    }
    asio::post(*to.reader_io,
               [handler = std::move(to.read_handler), error, n] { handler(error, n); });
    to.read_handler = nullptr;
  }
};

class MemoryEnd final : public Transport {
 public:
  MemoryEnd(std::shared_ptr<Shared> shared, int side, asio::io_context& io, std::string description)
      : shared_(std::move(shared)), side_(side), io_(io), description_(std::move(description)) {}

  ~MemoryEnd() override { close(); }

  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override {
    detail::MutexLock lock(shared_->mutex);
    Direction& in = shared_->towards[side_];
    in.read_buffer = buffer;
    in.read_handler = std::move(handler);
    shared_->try_complete_read(in);
  }

  void async_write(std::span<const std::uint8_t> data, Handler handler) override {
    std::error_code error;
    {
      detail::MutexLock lock(shared_->mutex);
      Direction& out = shared_->towards[1 - side_];
      if (out.writer_closed || out.reader_closed) {
        error = make_error_code(errc::closed);
      } else {
        out.bytes.insert(out.bytes.end(), data.begin(), data.end());
        shared_->try_complete_read(out);
      }
    }
    asio::post(io_, [handler = std::move(handler), error, n = error ? 0 : data.size()] {
      handler(error, n);
    });
  }

  void close() noexcept override {
    detail::MutexLock lock(shared_->mutex);
    Direction& in = shared_->towards[side_];
    Direction& out = shared_->towards[1 - side_];
    in.reader_closed = true;
    out.writer_closed = true;
    shared_->try_complete_read(in);
    shared_->try_complete_read(out);
  }

  std::string description() const override { return description_; }

 private:
  std::shared_ptr<Shared> shared_;
  int side_;
  asio::io_context& io_;
  std::string description_;
};

}  // namespace

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> make_memory_pipe(
    asio::io_context& first_io, asio::io_context& second_io, const std::string& description) {
  auto shared = std::make_shared<Shared>(first_io, second_io);
  return {std::make_unique<MemoryEnd>(shared, 0, first_io, description),
          std::make_unique<MemoryEnd>(shared, 1, second_io, description)};
}

}  // namespace adbwire::transport
