#include "daemon/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/target.hpp"
#include "connection/device_connect.hpp"
#include "connection/target_detail.hpp"

namespace adbwire::daemon {

// One connect in progress; whoever asks for the same target meanwhile waits for its outcome, or,
// once the device waits for a person to accept our key, is told so at once.
struct Registry::Connecting {
  bool done = false;
  std::shared_ptr<HeldDevice> device;
  detail::Failure failure;
  std::string serial;  // as the list shows it while unauthorized
  bool keep = false;
  bool awaiting = false;  // the key was offered: listed unauthorized, with transport_id
  std::uint64_t transport_id = 0;
  std::string fingerprint;
  std::function<void()> give_up;
};

// A connect no caller waits for (adb connect's), joined once over.
struct Registry::Background {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> over;
};

namespace {

// What the list shows for a target not connected yet: its serial as Device::serial() says it.
std::string listed_serial(const std::string& canonical) {
  const std::size_t colon = canonical.find(':');
  return colon == std::string::npos ? canonical : canonical.substr(colon + 1);
}

// Whether name (a serial, a canonical target or what parses to one) names a connect's target.
bool names(std::string_view name, const std::string& canonical, const std::string& serial) {
  if (name.empty()) return false;
  if (name == serial || name == canonical) return true;
  std::error_code error;
  const Target parsed = Target::parse(name, error);
  return !error && parsed.kind() != Target::Kind::server && parsed.to_string() == canonical;
}

// adb's server's sentence for a device that has not accepted this host's key (its first line is
// what scripts and adb's clients match), with the fingerprint the phone's prompt shows.
std::string unauthorized_sentence(const std::string& fingerprint) {
  const char* vendor_keys = std::getenv("ADB_VENDOR_KEYS");
  return std::string("device unauthorized.\nThis adbwire daemon's $ADB_VENDOR_KEYS is ") +
         (vendor_keys && *vendor_keys ? "set" : "not set") +
         "\nTry 'adbwire kill-server' if that seems wrong.\nOtherwise check for a confirmation "
         "dialog on your device (RSA key fingerprint " +
         fingerprint + ").";
}

}  // namespace

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

void Registry::connect_now(const std::string& canonical, bool usb, ConnectOptions options,
                           const std::shared_ptr<Connecting>& connecting) {
  // The connection keeps this as long as it lives, and connecting comes to hold the device, so
  // only a weak reference: a strong one would keep both alive for ever.
  const auto on_key_offered = [this, weak = std::weak_ptr<Connecting>(connecting)](
                                  std::string_view fingerprint, std::function<void()> give_up) {
    const std::shared_ptr<Connecting> connecting = weak.lock();
    if (!connecting) return;
    {
      detail::MutexLock lock(mutex_);
      connecting->awaiting = true;
      connecting->transport_id = ++ids_;
      connecting->fingerprint = std::string(fingerprint);
      connecting->give_up = std::move(give_up);
      ++generation_;
    }
    changed_cv_.notify_all();
  };
  std::error_code error;
  Device connected = connection::connect_watching_key(canonical, options, on_key_offered, error);
  // The device's later reconnects, should one meet a prompt, wait as long as any connect does,
  // not as adb connect's.
  options.auth_timeout = std::min(options.auth_timeout, ConnectOptions{}.auth_timeout);
  {
    detail::MutexLock lock(mutex_);
    if (error) {
      connecting->failure = detail::reported(error);
    } else {
      // A usb: target is held by the serial of the device it found, so "usb:" finds it again.
      const std::string held_as = usb ? "usb:" + connected.serial() : canonical;
      // An unauthorized device keeps the transport id it was listed with.
      const std::uint64_t id = connecting->awaiting ? connecting->transport_id : ++ids_;
      connecting->device =
          std::make_shared<HeldDevice>(id, held_as, options, std::move(connected), connecting->keep,
                                       ids_, [this] { changed(); });
      devices_.push_back(connecting->device);
    }
    connecting->done = true;
    connecting->give_up = nullptr;
    const auto slot = connecting_.find(canonical);
    if (slot != connecting_.end() && slot->second == connecting) connecting_.erase(slot);
    ++generation_;
  }
  changed_cv_.notify_all();
}

void Registry::connect_behind(const std::string& canonical, bool usb, const ConnectOptions& options,
                              const std::shared_ptr<Connecting>& connecting) {
  std::vector<Background> over;
  {
    detail::MutexLock lock(mutex_);
    for (auto it = background_.begin(); it != background_.end();) {
      if (it->over->load()) {
        over.push_back(std::move(*it));
        it = background_.erase(it);
      } else {
        ++it;
      }
    }
    auto done = std::make_shared<std::atomic<bool>>(false);
    background_.push_back({std::thread([this, canonical, usb, options, connecting, done] {
                             connect_now(canonical, usb, options, connecting);
                             *done = true;
                           }),
                           done});
  }
  for (Background& finished : over) finished.thread.join();
}

std::shared_ptr<HeldDevice> Registry::attach(std::string_view text, const ConnectOptions& options,
                                             bool keep, Notes& notes, detail::Failure& failure,
                                             bool wait_for_person) {
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
  const bool usb = target.kind() == Target::Kind::usb;
  const bool first_usb = usb && target.serial().empty();
  std::shared_ptr<HeldDevice> device;
  std::shared_ptr<Connecting> connecting;
  bool connect_here = false;
  {
    detail::MutexLock lock(mutex_);
    device = held(canonical, first_usb);
    if (!device) {
      auto& slot = connecting_[canonical];
      connect_here = !slot;
      if (connect_here) {
        slot = std::make_shared<Connecting>();
        slot->serial = listed_serial(canonical);
      }
      connecting = slot;
      if (keep) connecting->keep = true;
    }
  }
  if (device) {
    if (keep) device->keep();
    if (!device->ensure_connected(notes, failure)) return nullptr;
    return device;
  }
  if (connect_here && wait_for_person) {
    connect_now(canonical, usb, options, connecting);
  } else if (connect_here) {
    connect_behind(canonical, usb, options, connecting);
  }
  detail::MutexLock lock(mutex_);
  changed_cv_.wait(lock.native(), [&]() ADBWIRE_REQUIRES(mutex_) {
    return connecting->done || connecting->awaiting;
  });
  if (!connecting->done) {
    failure.set(errc::unauthorized, unauthorized_sentence(connecting->fingerprint));
    return nullptr;
  }
  if (connecting->failure) {
    failure = connecting->failure;
    return nullptr;
  }
  device = connecting->device;
  lock.unlock();
  if (keep) device->keep();
  return device;
}

std::shared_ptr<HeldDevice> Registry::select(const Selector& selector,
                                             detail::Failure& failure) const {
  const auto matches = [&selector](Link link, std::uint64_t id, const auto& named_by) {
    switch (selector.kind) {
      case Selector::Kind::serial:
        return named_by(selector.serial);
      case Selector::Kind::transport_id:
        return id == selector.transport_id;
      case Selector::Kind::any:
        return true;
      case Selector::Kind::usb:
        return link == Link::usb;
      case Selector::Kind::local:
        return link != Link::usb;
    }
    return false;
  };
  std::vector<std::shared_ptr<HeldDevice>> found;
  std::vector<std::string> unauthorized;  // the fingerprints of those waiting for a person
  {
    detail::MutexLock lock(mutex_);
    for (const auto& device : devices_) {
      if (matches(device->link(), device->transport_id(),
                  [&device](std::string_view name) { return device->named_by(name); })) {
        found.push_back(device);
      }
    }
    for (const auto& slot : connecting_) {
      const Connecting& connecting = *slot.second;
      if (!connecting.awaiting) continue;
      const Link link = slot.first.starts_with("usb:") ? Link::usb : Link::tcp;
      const auto named = [&slot](std::string_view name) {
        return names(name, slot.first, slot.second->serial);
      };
      if (matches(link, connecting.transport_id, named))
        unauthorized.push_back(connecting.fingerprint);
    }
  }
  const std::size_t total = found.size() + unauthorized.size();
  if (total == 1 && found.size() == 1) return found.front();
  if (total > 1 && selector.kind == Selector::Kind::serial && !found.empty()) return found.front();
  // AOSP's sentences, which adb clients (and classify_failure) recognise.
  if (!unauthorized.empty() && (total == 1 || selector.kind == Selector::Kind::serial)) {
    failure.set(errc::unauthorized, unauthorized_sentence(unauthorized.front()));
  } else if (total > 1) {
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

bool Registry::give_up(std::string_view name, bool every) {
  std::vector<std::shared_ptr<Connecting>> waiting;
  std::vector<std::function<void()>> ends;
  {
    detail::MutexLock lock(mutex_);
    for (const auto& [canonical, connecting] : connecting_) {
      if (connecting->give_up && (every || names(name, canonical, connecting->serial))) {
        waiting.push_back(connecting);
        ends.push_back(connecting->give_up);
      }
    }
  }
  for (const auto& end : ends) end();
  // Given up, each connect ends at once (its connection fails): bounded all the same.
  detail::MutexLock lock(mutex_);
  detail::wait_until(
      changed_cv_, lock, deadline_after(std::chrono::seconds(5)), [&]() ADBWIRE_REQUIRES(mutex_) {
        return std::all_of(waiting.begin(), waiting.end(), [](const auto& c) { return c->done; });
      });
  return !waiting.empty();
}

bool Registry::disconnect(std::string_view serial) {
  const bool pending = give_up(serial, false);
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
  return pending || !gone.empty();
}

void Registry::disconnect_all() {
  give_up({}, true);
  std::vector<std::shared_ptr<HeldDevice>> gone;
  std::vector<Background> background;
  {
    detail::MutexLock lock(mutex_);
    gone.swap(devices_);
    background.swap(background_);
  }
  for (const auto& device : gone) device->close();
  // A connect still under way that never reached the prompt ends within its connect timeout.
  for (Background& connect : background) connect.thread.join();
  {
    detail::MutexLock lock(mutex_);
    for (const auto& device : devices_) gone.push_back(device);
    devices_.clear();
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
  detail::MutexLock lock(mutex_);
  for (const auto& [canonical, connecting] : connecting_) {
    if (!connecting->awaiting) continue;
    protocol::DeviceEntry entry;
    entry.serial = connecting->serial;
    entry.state = protocol::DeviceState::unauthorized;
    entry.state_text = std::string(protocol::device_state_name(entry.state));
    entry.transport_id = connecting->transport_id;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::size_t Registry::size() const {
  detail::MutexLock lock(mutex_);
  return devices_.size();
}

bool Registry::keeps_any() const {
  detail::MutexLock lock(mutex_);
  return std::any_of(devices_.begin(), devices_.end(),
                     [](const std::shared_ptr<HeldDevice>& device) { return device->kept(); }) ||
         std::any_of(connecting_.begin(), connecting_.end(),
                     [](const auto& connecting) { return connecting.second->keep; });
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
