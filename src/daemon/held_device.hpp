// One device the daemon holds: its connection, made again when it drops, and what the adb server
// protocol says of it (transport id, serial, state, how it is connected). Every stream to the
// device, from any client, is opened here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/connect_options.hpp"
#include "adbwire/device.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "connection/stream_backend.hpp"
#include "daemon/daemon_protocol.hpp"

namespace adbwire::daemon {

// How the daemon reaches a device: the connection kinds an adb server lists apart.
enum class Link { tcp, tls, usb };

// What a held device tells whoever asked for a stream: that it reconnected, once per reconnect.
using Notes = std::vector<std::string>;

// Thread safe. Created connected by Registry::attach.
class HeldDevice : public std::enable_shared_from_this<HeldDevice> {
 public:
  // ids: where transport ids come from (a device that comes back as another device gets a new
  // one, as adb's server gives one per connection); changed: called after a change another
  // client may want to see (a reconnect), never under a lock of ours.
  HeldDevice(std::uint64_t transport_id, std::string target, ConnectOptions options, Device device,
             bool kept, std::atomic<std::uint64_t>& ids, std::function<void()> changed);
  ~HeldDevice();

  std::uint64_t transport_id() const;
  // The canonical target it was reached by ("tcp:127.0.0.1:5555", "usb:SERIAL").
  const std::string& target() const noexcept { return target_; }
  // What adb lists: Device::serial() ("127.0.0.1:5555", the USB serial).
  std::string serial() const;
  Link link() const;
  // Kept devices (host:connect, adb connect) stay until disconnected; the others end when unused
  // for the daemon's device idle time.
  bool kept() const;
  void keep();
  bool connected() const;
  // serial, a selector (serial, canonical target or what parses to it): whether it names this.
  bool named_by(std::string_view selector) const;

  BannerRecord record() const;
  // The line of host:devices(-l): state device or offline, product/model/device from the banner.
  protocol::DeviceEntry entry() const;

  // Connects again when the connection is known to have dropped (a note says so), so a client
  // about to use the device gets a fresh record. Errors: those of Device::connect.
  bool ensure_connected(Notes& notes, detail::Failure& failure);

  // Opens service on the device. When the connection is found gone, connects again and retries
  // once (a note says so); a device that came back with another banner fails this open with
  // device_offline ("run the command again": the caller chose its protocol from the old banner).
  // A second timeout in a row drops the connection and connects again at once, this open
  // retried on the new one with as long again (a device that stopped answering is never waited
  // on by every later call). deadline: resolved (a time). nullptr with failure set:
  // Device::open's errors.
  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline, Notes& notes,
                                      detail::Failure& failure);

  // A Device whose streams are opened here (with the reconnects above), for a session's Page; its
  // close() ends only itself. Notes go to on_note. Counts as a use while it lives.
  // Output it gathers whole is bounded by limits (the session's ConnectOptions::limits).
  Device share(std::function<void(std::string_view)> on_note, const OutputLimits& limits);

  // Counts as a use while the returned token lives (a running stream, a session's Device).
  std::shared_ptr<void> use();
  // Unused (no token alive) since this long.
  Clock::duration idle_for() const;

  // Drops the connection and connects again (adb reconnect); streams on the old one fail.
  // Errors: the connect's (a failed one leaves the device offline, to be connected on next use).
  bool connect_again(Notes& notes, detail::Failure& failure);

  // Closes the connection; streams and shared Devices fail with closed from then on.
  void close();

 private:
  std::shared_ptr<Device> current() const;
  // Connects again unless someone did since `seen` was current. same_device: the caller streams
  // to the device it knew, so a failed connect is device_offline and a banner change is a failure
  // (device_offline) once the new connection is taken.
  bool reconnect(const std::shared_ptr<Device>& seen, std::string_view why, bool same_device,
                 Notes& notes, detail::Failure& failure);
  void touch();

  const std::string target_;
  const ConnectOptions options_;
  std::atomic<std::uint64_t>& ids_;
  const std::function<void()> changed_;
  detail::Mutex reconnect_mutex_;  // one reconnect at a time; never taken under mutex_
  mutable detail::Mutex mutex_;
  std::shared_ptr<Device> device_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t transport_id_ ADBWIRE_GUARDED_BY(mutex_);
  bool kept_ ADBWIRE_GUARDED_BY(mutex_);
  bool closed_ ADBWIRE_GUARDED_BY(mutex_) = false;
  int timeouts_ ADBWIRE_GUARDED_BY(mutex_) = 0;  // opens that timed out in a row
  int uses_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  Clock::time_point last_used_ ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace adbwire::daemon
