// The devices the daemon holds, one connection each, with the transport ids and the selection
// rules of adb's server (host:transport:SERIAL, -any, -usb, -local, -id:N).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/connect_options.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "daemon/held_device.hpp"

namespace adbwire::daemon {

// Which device a request names.
struct Selector {
  enum class Kind { serial, transport_id, any, usb, local } kind = Kind::any;
  std::string serial;  // Kind::serial: a serial, a canonical target, or what parses to one
  std::uint64_t transport_id = 0;
};

// Thread safe.
class Registry {
 public:
  // device_idle: how long a device nobody kept nor used stays held; dropped_idle: the same for
  // one whose connection dropped (the device went away: a test's virtual device, a phone off the
  // network).
  Registry(std::chrono::seconds device_idle, std::chrono::seconds dropped_idle);
  ~Registry();

  // The held device for target (tcp:, usb:, HOST:PORT), connected now when it is not held yet
  // (options for that connect; concurrent calls for one target make one connection and share its
  // outcome). keep: it stays until disconnected. A held device found dropped is connected again
  // (notes say so). A device waiting for a person to accept our key is listed `unauthorized`
  // meanwhile (with its transport id) and becomes `device` on that same connection once accepted;
  // a call that finds it waiting fails at once with unauthorized and adb's sentence, and so does
  // this one when wait_for_person is false (adb connect's answer), the connect going on behind
  // it (until options.auth_timeout). Errors: invalid_argument (not a target, or a server: one:
  // that adb server holds it), unauthorized, Device::connect's.
  std::shared_ptr<HeldDevice> attach(std::string_view target, const ConnectOptions& options,
                                     bool keep, Notes& notes, detail::Failure& failure,
                                     bool wait_for_person = true);

  // The device selector names, as adb's server picks it. Errors with adb's own sentences:
  // not_found ("device 'X' not found", "no devices/emulators found"), invalid_argument ("more
  // than one device/emulator").
  std::shared_ptr<HeldDevice> select(const Selector& selector, detail::Failure& failure) const;

  // Whether a device held is named by name (a serial, a canonical target or what parses to one),
  // connected or not.
  bool holds(std::string_view name) const;

  // Lets go of the devices serial names (host:disconnect:SERIAL), an unauthorized one too (its
  // wait for a person ends); false when none does.
  bool disconnect(std::string_view serial);
  // Lets go of every device, the unauthorized ones too.
  void disconnect_all();

  // host:devices(-l), in the order the devices came.
  std::vector<protocol::DeviceEntry> list() const;
  // The number of devices held.
  std::size_t size() const;
  // Whether a device is kept (host:connect): the daemon then does not end idle.
  bool keeps_any() const;

  // Bumped on every change to the list (a device added, removed, reconnected); wait_change wakes
  // when it moves past seen, or at deadline (a state can change unseen: a connection that drops).
  std::uint64_t generation() const;
  void wait_change(std::uint64_t seen, Deadline deadline) const;

  // Lets go of devices idle longer than their limit. Called by the daemon every few seconds.
  void sweep();

 private:
  struct Connecting;
  struct Background;
  void changed();
  // Device::connect for connecting, its outcome (a HeldDevice, or the failure) left there.
  void connect_now(const std::string& canonical, bool usb, ConnectOptions options,
                   const std::shared_ptr<Connecting>& connecting);
  // The same on a thread of its own, for a caller that does not wait for a person.
  void connect_behind(const std::string& canonical, bool usb, const ConnectOptions& options,
                      const std::shared_ptr<Connecting>& connecting);
  // Ends the waits for a person of the connects matching (all when every), and returns once
  // they are over.
  bool give_up(std::string_view name, bool every);
  // The device held as canonical, or for "usb:" (first_usb) any USB device.
  std::shared_ptr<HeldDevice> held(const std::string& canonical, bool first_usb) const
      ADBWIRE_REQUIRES(mutex_);

  const std::chrono::seconds device_idle_;
  const std::chrono::seconds dropped_idle_;
  std::atomic<std::uint64_t> ids_{0};
  mutable detail::Mutex mutex_;
  mutable std::condition_variable changed_cv_;
  std::vector<std::shared_ptr<HeldDevice>> devices_ ADBWIRE_GUARDED_BY(mutex_);
  std::map<std::string, std::shared_ptr<Connecting>> connecting_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<Background> background_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t generation_ ADBWIRE_GUARDED_BY(mutex_) = 0;
};

}  // namespace adbwire::daemon
