// Device through a running adb server: one TCP connection to the server per stream, switched
// to the device (host:transport-id:N) and then to the service; afterwards the socket is the
// stream's raw bytes.
#include "connection/server_opener.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "adbwire/protocol/banner.hpp"
#include "base/mutex.hpp"
#include "server/server_socket.hpp"

namespace adbwire::connection {
namespace {

using server::ServerSocket;

class ServerStream final : public StreamBackend {
 public:
  explicit ServerStream(std::shared_ptr<ServerSocket> socket) : socket_(std::move(socket)) {}
  ~ServerStream() override { close(); }

  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure) override {
    const std::size_t n = socket_->read_some(buffer, deadline, failure);
    if (n == 0 && !failure) ended_ = true;
    return n;
  }

  void write(std::span<const std::uint8_t> data, Deadline deadline,
             detail::Failure& failure) override {
    if (ended_) {
      failure.set(errc::closed, "the device ended this stream; open a new one");
      return;
    }
    socket_->write(data, deadline, failure);
  }

  void close() noexcept override { socket_->shutdown(); }
  bool is_open() const noexcept override { return !ended_ && !socket_->is_shut_down(); }

 private:
  std::shared_ptr<ServerSocket> socket_;
  std::atomic<bool> ended_{false};
};

class ServerOpener final : public StreamOpener {
 public:
  ServerOpener(ServerAddress address, std::string serial, std::uint64_t transport_id,
               protocol::Banner banner, std::string target)
      : address_(std::move(address)),
        serial_(std::move(serial)),
        transport_id_(transport_id),
        banner_(std::move(banner)),
        target_(std::move(target)),
        our_features_(protocol::host_features()) {}

  ~ServerOpener() override { close(); }

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override {
    if (service.empty()) {
      failure.set(errc::invalid_argument, "no service given to open");
      return nullptr;
    }
    if (closed_) {
      failure.set(errc::closed, "the Device was closed; connect again");
      return nullptr;
    }
    std::shared_ptr<ServerSocket> socket = ServerSocket::connect(address_, deadline, failure);
    if (!socket) return nullptr;
    track(socket);
    // Pinned to the transport id, so a device that went away and came back is reported
    // rather than silently used again (the same contract as a dropped direct connection).
    const std::string switch_request = "host:transport-id:" + std::to_string(transport_id_);
    if (!socket->request(switch_request, deadline, failure)) return nullptr;
    if (!socket->expect_okay("adb server", deadline, failure)) {
      if (failure.code == errc::not_found || failure.code == errc::command_failed) {
        failure.set(errc::device_offline,
                    serial_ + " left the adb server at " + socket->where() +
                        " (unplugged, disconnected or restarted); connect again (" +
                        failure.detail + ")");
      }
      return nullptr;
    }
    if (!socket->request(service, deadline, failure)) return nullptr;
    if (!socket->expect_okay("device refused '" + std::string(service) + "'", deadline, failure)) {
      if (failure.code == errc::command_failed || failure.code == errc::closed)
        failure.code = make_error_code(errc::not_supported);
      return nullptr;
    }
    return std::make_unique<ServerStream>(std::move(socket));
  }

  const protocol::Banner& banner() const noexcept override { return banner_; }

  bool can_use_feature(std::string_view feature) const noexcept override {
    return banner_.has_feature(feature) &&
           std::find(our_features_.begin(), our_features_.end(), feature) != our_features_.end();
  }

  std::string serial() const override { return serial_; }

  ConnectionInfo info() const override {
    ConnectionInfo info;
    info.target = target_;
    return info;
  }

  void close() noexcept override {
    detail::MutexLock lock(mutex_);
    closed_ = true;
    for (auto& [raw, weak] : live_) {
      if (auto socket = weak.lock()) socket->shutdown();
    }
    live_.clear();
  }

 private:
  void track(const std::shared_ptr<ServerSocket>& socket) {
    detail::MutexLock lock(mutex_);
    std::erase_if(live_, [](const auto& entry) { return entry.second.expired(); });
    if (closed_) socket->shutdown();
    live_.emplace(socket.get(), socket);
  }

  const ServerAddress address_;
  const std::string serial_;
  const std::uint64_t transport_id_;
  const protocol::Banner banner_;
  const std::string target_;
  const std::vector<std::string> our_features_;

  detail::Mutex mutex_;
  std::atomic<bool> closed_{false};
  // Every stream socket, so close() can wake their callers.
  std::unordered_map<const ServerSocket*, std::weak_ptr<ServerSocket>> live_
      ADBWIRE_GUARDED_BY(mutex_);
};

// "a,b,c" → {a, b, c}.
std::vector<std::string> split_features(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    if (comma != 0) out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

std::shared_ptr<StreamOpener> connect_through_server(const Target& target,
                                                     const ConnectOptions& options,
                                                     detail::Failure& failure) {
  ServerAddress given = options.server;
  if (!target.host().empty()) given = ServerAddress{target.host(), target.port()};
  const ServerAddress address = server::resolve_address(given, failure);
  if (failure) return nullptr;
  const Deadline deadline = deadline_after(options.connect_timeout);
  const std::string& serial = target.serial();

  auto socket = ServerSocket::connect(address, deadline, failure);
  if (!socket) return nullptr;
  std::uint64_t transport_id = 0;
  if (!socket->request("host:tport:serial:" + serial, deadline, failure) ||
      !socket->expect_okay("adb server at " + to_string(address), deadline, failure) ||
      !socket->read_transport_id(transport_id, deadline, failure)) {
    return nullptr;
  }

  socket = ServerSocket::connect(address, deadline, failure);
  std::string features;
  if (!socket || !socket->request("host-serial:" + serial + ":features", deadline, failure) ||
      !socket->expect_okay("adb server at " + to_string(address), deadline, failure) ||
      !socket->read_string(features, deadline, failure)) {
    return nullptr;
  }

  // devices-l names the product, model and device, as the device's banner would.
  socket = ServerSocket::connect(address, deadline, failure);
  std::string list;
  if (!socket || !socket->request("host:devices-l", deadline, failure) ||
      !socket->expect_okay("adb server at " + to_string(address), deadline, failure) ||
      !socket->read_string(list, deadline, failure)) {
    return nullptr;
  }
  std::vector<protocol::DeviceEntry> entries;
  std::string detail;
  if (protocol::parse_device_list(list, entries, detail)) {
    failure.set(errc::protocol_error, "adb server at " + to_string(address) + ": " + detail);
    return nullptr;
  }

  protocol::Banner banner;
  banner.system_type = "device";
  banner.serial = serial;
  banner.features = split_features(features);
  for (const protocol::DeviceEntry& entry : entries) {
    if (entry.transport_id != transport_id) continue;
    if (!entry.product.empty()) banner.properties.emplace_back("ro.product.name", entry.product);
    if (!entry.model.empty()) banner.properties.emplace_back("ro.product.model", entry.model);
    if (!entry.device.empty()) banner.properties.emplace_back("ro.product.device", entry.device);
  }
  const std::string canonical = "server:" + to_string(address) + "/" + serial;
  return std::make_shared<ServerOpener>(address, serial, transport_id, std::move(banner),
                                        canonical);
}

}  // namespace adbwire::connection
