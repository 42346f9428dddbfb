#include "daemon/registry.hpp"

#include <algorithm>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/target.hpp"
#include "connection/target_detail.hpp"

namespace adbwire::daemon {

// One connect in progress; whoever asks for the same target meanwhile waits for its outcome.
struct Registry::Connecting {
  bool done = false;
  std::shared_ptr<HeldDevice> device;
  detail::Failure failure;
};

Registry::Registry(std::chrono::seconds device_idle, std::chrono::seconds dropped_idle)
    : device_idle_(device_idle), dropped_idle_(dropped_idle) {}

Registry::~Registry() { disconnect_all(); }

void Registry::changed() {
  {
    detail::MutexLock lock(mutex_);
    ++generation_;
  }
  changed_cv_.notify_all();
}

std::shared_ptr<HeldDevice> Registry::held(const std::string& canonical, bool first_usb) const {
  for (const auto& device : devices_) {
    if (device->target() == canonical || (first_usb && device->link() == Link::usb)) return device;
  }
  return nullptr;
}

std::shared_ptr<HeldDevice> Registry::attach(std::string_view text, const ConnectOptions& options,
                                             bool keep, Notes& notes, detail::Failure& failure) {
  std::error_code error;
  const Target target = Target::parse(text, error);
  if (error) {
    failure.set(error, detail::target_error_detail(text));
    return nullptr;
  }
  if (target.kind() == Target::Kind::server) {
    failure.set(errc::invalid_argument,
                "the adbwire daemon holds direct connections (tcp:, usb:); " + target.to_string() +
                    " is held by that adb server: reach it through it");
    return nullptr;
  }
  const std::string canonical = target.to_string();
  const bool first_usb = target.kind() == Target::Kind::usb && target.serial().empty();
  std::shared_ptr<HeldDevice> device;
  std::shared_ptr<Connecting> connecting;
  bool connect_here = false;
  {
    detail::MutexLock lock(mutex_);
    device = held(canonical, first_usb);
    if (!device) {
      auto& slot = connecting_[canonical];
      connect_here = !slot;
      if (connect_here) slot = std::make_shared<Connecting>();
      connecting = slot;
      if (!connect_here) {
        changed_cv_.wait(lock.native(),
                         [&]() ADBWIRE_REQUIRES(mutex_) { return connecting->done; });
        if (connecting->failure) {
          failure = connecting->failure;
          return nullptr;
        }
        device = connecting->device;
      }
    }
  }
  if (device) {
    if (keep) device->keep();
    if (!device->ensure_connected(notes, failure)) return nullptr;
    return device;
  }

  Device connected = Device::connect(canonical, options, error);
  {
    detail::MutexLock lock(mutex_);
    if (error) {
      connecting->failure = detail::reported(error);
      failure = connecting->failure;
    } else {
      // A usb: target is held by the serial of the device it found, so "usb:" finds it again.
      const std::string held_as =
          target.kind() == Target::Kind::usb ? "usb:" + connected.serial() : canonical;
      device = std::make_shared<HeldDevice>(++ids_, held_as, options, std::move(connected), keep,
                                            ids_, [this] { changed(); });
      devices_.push_back(device);
      connecting->device = device;
    }
    connecting->done = true;
    connecting_.erase(canonical);
    ++generation_;
  }
  changed_cv_.notify_all();
  return device;
}

std::shared_ptr<HeldDevice> Registry::select(const Selector& selector,
                                             detail::Failure& failure) const {
  std::vector<std::shared_ptr<HeldDevice>> found;
  {
    detail::MutexLock lock(mutex_);
    for (const auto& device : devices_) {
      bool match = false;
      switch (selector.kind) {
        case Selector::Kind::serial:
          match = device->named_by(selector.serial);
          break;
        case Selector::Kind::transport_id:
          match = device->transport_id() == selector.transport_id;
          break;
        case Selector::Kind::any:
          match = true;
          break;
        case Selector::Kind::usb:
          match = device->link() == Link::usb;
          break;
        case Selector::Kind::local:
          match = device->link() != Link::usb;
          break;
      }
      if (match) found.push_back(device);
    }
  }
  if (found.size() == 1) return found.front();
  if (found.size() > 1 && selector.kind == Selector::Kind::serial) return found.front();
  // AOSP's sentences, which adb clients (and classify_failure) recognise.
  if (!found.empty()) {
    failure.set(errc::invalid_argument, "more than one device/emulator");
  } else if (selector.kind == Selector::Kind::serial) {
    failure.set(errc::not_found, "device '" + selector.serial + "' not found");
  } else if (selector.kind == Selector::Kind::transport_id) {
    failure.set(errc::not_found,
                "no device with transport id '" + std::to_string(selector.transport_id) + "'");
  } else {
    failure.set(errc::not_found, "no devices/emulators found");
  }
  return nullptr;
}

bool Registry::holds(std::string_view name) const {
  detail::MutexLock lock(mutex_);
  return std::any_of(
      devices_.begin(), devices_.end(),
      [&](const std::shared_ptr<HeldDevice>& device) { return device->named_by(name); });
}

bool Registry::disconnect(std::string_view serial) {
  std::vector<std::shared_ptr<HeldDevice>> gone;
  {
    detail::MutexLock lock(mutex_);
    for (auto it = devices_.begin(); it != devices_.end();) {
      if ((*it)->named_by(serial)) {
        gone.push_back(*it);
        it = devices_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& device : gone) device->close();
  if (!gone.empty()) changed();
  return !gone.empty();
}

void Registry::disconnect_all() {
  std::vector<std::shared_ptr<HeldDevice>> gone;
  {
    detail::MutexLock lock(mutex_);
    gone.swap(devices_);
  }
  for (const auto& device : gone) device->close();
  if (!gone.empty()) changed();
}

std::vector<protocol::DeviceEntry> Registry::list() const {
  std::vector<std::shared_ptr<HeldDevice>> devices;
  {
    detail::MutexLock lock(mutex_);
    devices = devices_;
  }
  std::vector<protocol::DeviceEntry> entries;
  for (const auto& device : devices) entries.push_back(device->entry());
  return entries;
}

std::size_t Registry::size() const {
  detail::MutexLock lock(mutex_);
  return devices_.size();
}

bool Registry::keeps_any() const {
  detail::MutexLock lock(mutex_);
  return std::any_of(devices_.begin(), devices_.end(),
                     [](const std::shared_ptr<HeldDevice>& device) { return device->kept(); });
}

std::uint64_t Registry::generation() const {
  detail::MutexLock lock(mutex_);
  return generation_;
}

void Registry::wait_change(std::uint64_t seen, Deadline deadline) const {
  detail::MutexLock lock(mutex_);
  detail::wait_until(changed_cv_, lock, deadline,
                     [&]() ADBWIRE_REQUIRES(mutex_) { return generation_ != seen; });
}

void Registry::sweep() {
  std::vector<std::shared_ptr<HeldDevice>> gone;
  {
    detail::MutexLock lock(mutex_);
    for (auto it = devices_.begin(); it != devices_.end();) {
      const auto& device = *it;
      const Clock::duration idle = device->idle_for();
      const bool dropped = !device->connected();
      const bool expired = (!device->kept() && idle >= device_idle_) ||
                           (dropped && !device->kept() && idle >= dropped_idle_);
      if (expired) {
        gone.push_back(device);
        it = devices_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& device : gone) device->close();
  if (!gone.empty()) changed();
}

}  // namespace adbwire::daemon
