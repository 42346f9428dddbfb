#include "transport/replay_transport.hpp"

#include <algorithm>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <cstring>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "base/mutex.hpp"

namespace adbwire::transport {
namespace {

// The device end of the link: plays the script's device messages, checks what the host writes.
class ReplayTransport final : public Transport {
 public:
  ReplayTransport(asio::io_context& io, std::shared_ptr<detail::ReplayState> state,
                  std::string description)
      : io_(io), state_(std::move(state)), description_(std::move(description)) {}

  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override {
    read_buffer_ = buffer;
    read_handler_ = std::move(handler);
    pump();
  }

  void async_write(std::span<const std::uint8_t> data, Handler handler) override {
    bool matched = false;
    if (!closed_) {
      detail::MutexLock lock(state_->mutex);
      matched = state_->script.host_sent(data);
    }
    const std::error_code error = closed_   ? make_error_code(errc::closed)
                                  : matched ? std::error_code()
                                            : make_error_code(errc::protocol_error);
    asio::post(io_, [handler = std::move(handler), error, size = data.size()] {
      handler(error, error ? 0 : size);
    });
    if (error) {
      fail_read(error);
    } else {
      pump();
    }
  }

  void close() noexcept override {
    closed_ = true;
    fail_read(make_error_code(asio::error::operation_aborted));
  }

  std::string description() const override { return description_; }

 private:
  void pump() {
    if (!read_handler_ || closed_) return;
    if (outbox_used_ == outbox_.size()) {
      outbox_.clear();
      outbox_used_ = 0;
      detail::MutexLock lock(state_->mutex);
      state_->script.take_device_output(outbox_);
    }
    // With nothing due the read waits, as on an idle device, until the host sends or closes.
    if (outbox_used_ == outbox_.size()) return;
    const std::size_t n = std::min(read_buffer_.size(), outbox_.size() - outbox_used_);
    std::memcpy(read_buffer_.data(), outbox_.data() + outbox_used_, n);
    outbox_used_ += n;
    asio::post(io_, [handler = std::exchange(read_handler_, nullptr), n] { handler({}, n); });
  }

  void fail_read(std::error_code error) {
    if (!read_handler_) return;
    asio::post(io_,
               [handler = std::exchange(read_handler_, nullptr), error] { handler(error, 0); });
  }

  asio::io_context& io_;
  std::shared_ptr<detail::ReplayState> state_;
  std::string description_;
  std::span<std::uint8_t> read_buffer_;
  Handler read_handler_;
  std::vector<std::uint8_t> outbox_;
  std::size_t outbox_used_ = 0;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<Transport> make_replay_transport(asio::io_context& io,
                                                 std::shared_ptr<detail::ReplayState> state,
                                                 std::string description) {
  return std::make_unique<ReplayTransport>(io, std::move(state), std::move(description));
}

}  // namespace adbwire::transport
