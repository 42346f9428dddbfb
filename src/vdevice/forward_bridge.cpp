#include "vdevice/forward_bridge.hpp"

#include <asio/write.hpp>

namespace adbwire::vdevice {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

}  // namespace

ForwardBridge::ForwardBridge(ServiceHost& host, std::uint32_t stream, asio::ip::tcp::socket socket,
                             bool device_opened)
    : host_(host),
      stream_(stream),
      socket_(std::move(socket)),
      device_opened_(device_opened),
      read_buffer_(std::make_shared<std::vector<std::uint8_t>>(kReadSize)) {}

ForwardBridge::~ForwardBridge() {
  if (device_opened_ && !started_) host_.device().state().count_reverse_refused();
  std::error_code ignored;
  socket_.close(ignored);
}

void ForwardBridge::start() {
  started_ = true;
  read();
}

void ForwardBridge::read() {
  if (reading_ || ended_ || host_.session().queued(stream_) >= kMaxQueued) return;
  reading_ = true;
  socket_.async_read_some(
      asio::buffer(*read_buffer_),
      [weak = weak_from_this(), buffer = read_buffer_](std::error_code error, std::size_t n) {
        auto self = std::static_pointer_cast<ForwardBridge>(weak.lock());
        if (!self) return;
        self->reading_ = false;
        if (error) {
          self->end_stream();
          return;
        }
        self->host_.session().write(self->stream_, {buffer->data(), n});
        self->read();
        self->host_.wake();
      });
}

void ForwardBridge::on_data(std::span<const std::uint8_t> data) {
  to_socket_.push_back(std::make_shared<std::vector<std::uint8_t>>(data.begin(), data.end()));
  write_next();
}

void ForwardBridge::write_next() {
  if (writing_ || to_socket_.empty()) return;
  writing_ = true;
  auto chunk = to_socket_.front();
  asio::async_write(socket_, asio::buffer(*chunk),
                    [weak = weak_from_this(), chunk](std::error_code error, std::size_t) {
                      auto self = std::static_pointer_cast<ForwardBridge>(weak.lock());
                      if (!self) return;
                      self->writing_ = false;
                      if (error) {
                        self->end_stream();
                        return;
                      }
                      self->to_socket_.pop_front();
                      // Acknowledged only now: the host sends more once the socket took these
                      // bytes.
                      self->host_.session().acknowledge(self->stream_, chunk->size());
                      self->write_next();
                      self->host_.wake();
                    });
}

void ForwardBridge::resume() { read(); }

void ForwardBridge::end_stream() {
  if (ended_) return;
  ended_ = true;
  host_.session().close_stream(stream_);
  host_.wake();
}

}  // namespace adbwire::vdevice
