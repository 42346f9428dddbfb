// One ADB stream joined to one TCP socket on the virtual device's side: the tcp:PORT service
// (host-initiated, `adb forward`) and the sockets of reverse rules (device-initiated,
// `adb reverse`). Bytes go both ways with bounded buffers: the socket is read only while the
// session holds less than Service::kMaxQueued for the stream, and host data is acknowledged
// only once it was written to the socket.
#pragma once

#include <asio/ip/tcp.hpp>
#include <deque>
#include <memory>
#include <vector>

#include "vdevice/service.hpp"

namespace adbwire::vdevice {

class ForwardBridge final : public Service {
 public:
  // device_opened: the stream was opened by this side (reverse); destroying it before
  // start() means the host refused it, which the device counts.
  ForwardBridge(ServiceHost& host, std::uint32_t stream, asio::ip::tcp::socket socket,
                bool device_opened);
  ~ForwardBridge() override;

  void start() override;
  void on_data(std::span<const std::uint8_t> data) override;
  void resume() override;

 private:
  void read();
  void write_next();
  void end_stream();

  ServiceHost& host_;
  std::uint32_t stream_;
  asio::ip::tcp::socket socket_;
  bool device_opened_;
  bool started_ = false;
  bool reading_ = false;
  bool ended_ = false;
  std::shared_ptr<std::vector<std::uint8_t>> read_buffer_;
  std::deque<std::shared_ptr<std::vector<std::uint8_t>>> to_socket_;
  bool writing_ = false;
};

}  // namespace adbwire::vdevice
