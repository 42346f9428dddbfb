#include "daemon/held_device.hpp"

#include <cctype>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/protocol/banner.hpp"
#include "adbwire/target.hpp"
#include "daemon/record_opener.hpp"

namespace adbwire::daemon {
namespace {

// Open failures that mean the connection itself is gone (Connection::open hands back the
// connection's failure once it failed), not that this one service could not be opened.
bool connection_lost(const std::error_code& code) {
  return code == errc::device_offline || code == errc::closed || code == errc::protocol_error;
}

// Opens in a row that timed out before the connection counts as dead.
constexpr int kTimeoutsBeforeReconnect = 2;

BannerRecord record_of(const Device& device) {
  BannerRecord record;
  record.serial = device.serial();
  record.banner = protocol::format_banner(device.banner());
  for (const std::string& feature : device.banner().features) {
    if (device.has_feature(feature)) record.features.push_back(feature);
  }
  return record;
}

// A device's words in a device list: whatever it sent, never a space, tab or newline that
// would break the list's lines into fields or devices of the device's choosing (AOSP's
// sanitize()). Qualifiers (product, model, device) keep letters and digits only.
std::string listed(std::string_view text, bool qualifier) {
  std::string out(text);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (qualifier ? !std::isalnum(byte) : (byte <= ' ' || byte >= 0x7f)) c = '_';
  }
  return out;
}

// A Device for a session: its streams are the held device's, with its reconnects.
class SharedOpener final : public RecordOpener {
 public:
  SharedOpener(std::shared_ptr<HeldDevice> held, std::shared_ptr<void> use,
               std::function<void(std::string_view)> on_note)
      : RecordOpener(held->target(), held->record()),
        held_(std::move(held)),
        use_(std::move(use)),
        on_note_(std::move(on_note)) {}

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override {
    if (closed_) {
      failure.set(errc::closed, "the connection to " + held_->target() + " was closed");
      return nullptr;
    }
    Notes notes;
    auto stream = held_->open(service, deadline, notes, failure);
    for (const std::string& note : notes) {
      if (on_note_) on_note_(note);
    }
    return stream;
  }

  void close() noexcept override { closed_ = true; }
  bool connected() const noexcept override { return !closed_ && held_->connected(); }

 private:
  const std::shared_ptr<HeldDevice> held_;
  const std::shared_ptr<void> use_;
  const std::function<void(std::string_view)> on_note_;
  std::atomic<bool> closed_{false};
};

// The state a connected device is in, as its banner says (recovery, sideload, … as adb lists it).
protocol::DeviceState state_of(const protocol::Banner& banner) {
  using protocol::DeviceState;
  for (const DeviceState state : {DeviceState::bootloader, DeviceState::recovery,
                                  DeviceState::rescue, DeviceState::sideload}) {
    if (banner.system_type == protocol::device_state_name(state)) return state;
  }
  return DeviceState::device;
}

}  // namespace

HeldDevice::HeldDevice(std::uint64_t transport_id, std::string target, ConnectOptions options,
                       Device device, bool kept, std::atomic<std::uint64_t>& ids,
                       std::function<void()> changed)
    : target_(std::move(target)),
      options_(std::move(options)),
      ids_(ids),
      changed_(std::move(changed)),
      device_(std::make_shared<Device>(std::move(device))),
      transport_id_(transport_id),
      kept_(kept),
      last_used_(Clock::now()) {}

HeldDevice::~HeldDevice() { close(); }

std::uint64_t HeldDevice::transport_id() const {
  detail::MutexLock lock(mutex_);
  return transport_id_;
}

std::string HeldDevice::serial() const { return current()->serial(); }

Link HeldDevice::link() const {
  if (target_.starts_with("usb:")) return Link::usb;
  return current()->connection_info().tls ? Link::tls : Link::tcp;
}

bool HeldDevice::kept() const {
  detail::MutexLock lock(mutex_);
  return kept_;
}

void HeldDevice::keep() {
  detail::MutexLock lock(mutex_);
  kept_ = true;
}

bool HeldDevice::connected() const {
  detail::MutexLock lock(mutex_);
  return !closed_ && device_->opener() != nullptr && device_->opener()->connected();
}

bool HeldDevice::named_by(std::string_view selector) const {
  if (selector.empty()) return false;
  const std::string serial = this->serial();
  if (selector == serial || selector == listed(serial, false) || selector == target_) return true;
  std::error_code error;
  const Target parsed = Target::parse(selector, error);
  return !error && parsed.kind() != Target::Kind::server && parsed.to_string() == target_;
}

BannerRecord HeldDevice::record() const { return record_of(*current()); }

protocol::DeviceEntry HeldDevice::entry() const {
  const std::shared_ptr<Device> device = current();
  protocol::DeviceEntry entry;
  entry.serial = listed(device->serial(), false);
  entry.state = connected() ? state_of(device->banner()) : protocol::DeviceState::offline;
  entry.state_text = std::string(protocol::device_state_name(entry.state));
  entry.product = listed(device->banner().property("ro.product.name"), true);
  entry.model = listed(device->banner().property("ro.product.model"), true);
  entry.device = listed(device->banner().property("ro.product.device"), true);
  entry.transport_id = transport_id();
  return entry;
}

std::shared_ptr<Device> HeldDevice::current() const {
  detail::MutexLock lock(mutex_);
  return device_;
}

void HeldDevice::touch() {
  detail::MutexLock lock(mutex_);
  last_used_ = Clock::now();
}

bool HeldDevice::ensure_connected(Notes& notes, detail::Failure& failure) {
  if (connected()) return true;
  return reconnect(current(), "the device had closed it", false, notes, failure);
}

bool HeldDevice::connect_again(Notes& notes, detail::Failure& failure) {
  const std::shared_ptr<Device> seen = current();
  seen->close();
  return reconnect(seen, "asked to reconnect", false, notes, failure);
}

bool HeldDevice::reconnect(const std::shared_ptr<Device>& seen, std::string_view why,
                           bool same_device, Notes& notes, detail::Failure& failure) {
  bool new_device = false;
  {
    detail::MutexLock reconnecting(reconnect_mutex_);
    {
      detail::MutexLock lock(mutex_);
      if (closed_) {
        failure.set(errc::closed, "the adbwire daemon let go of " + target_);
        return false;
      }
      // Someone connected again since this caller found the connection gone: use theirs.
      if (device_ != seen) return true;
    }
    std::error_code error;
    Device fresh = Device::connect(target_, options_, error);
    if (error) {
      // To a stream's caller the device is offline; a client that asked for the device itself
      // gets the connect's own error, as a first connect would have.
      const detail::Failure connect = detail::reported(error);
      failure.set(same_device ? make_error_code(errc::device_offline) : connect.code,
                  "the connection to " + target_ + " dropped (" + std::string(why) +
                      ") and connecting again failed: " + connect.detail);
      return false;
    }
    new_device = format_banner_record(record_of(fresh)) != format_banner_record(record_of(*seen));
    detail::MutexLock lock(mutex_);
    device_ = std::make_shared<Device>(std::move(fresh));
    timeouts_ = 0;
    if (new_device) transport_id_ = ++ids_;
  }
  if (changed_) changed_();
  notes.push_back("reconnected to " + target_ +
                  " (the connection had dropped: " + std::string(why) + ")");
  if (new_device && same_device) {
    failure.set(errc::device_offline,
                "the connection to " + target_ +
                    " dropped; connected again, but the device there is not the one it was (its "
                    "banner changed): run the command again");
    return false;
  }
  return true;
}

std::unique_ptr<StreamBackend> HeldDevice::open(std::string_view service, Deadline deadline,
                                                Notes& notes, detail::Failure& failure) {
  const Clock::time_point started = Clock::now();
  touch();
  std::shared_ptr<Device> device = current();
  if (!connected() && !reconnect(device, "the device had closed it", true, notes, failure))
    return nullptr;
  device = current();
  detail::Failure lost;
  auto stream = device->opener()->open(service, deadline, lost);
  if (!lost) {
    detail::MutexLock lock(mutex_);
    timeouts_ = 0;
    return stream;
  }
  if (lost.code == errc::timeout) {
    {
      detail::MutexLock lock(mutex_);
      if (++timeouts_ < kTimeoutsBeforeReconnect) {
        failure = std::move(lost);
        return nullptr;
      }
    }
    // The device takes the connection but no longer answers (a phone asleep, a link that stalls
    // without closing): connecting again now, rather than letting every later call wait out its
    // deadline, and this call gets as long again on the new connection.
    const std::string why = "the device answered nothing for " +
                            std::to_string(kTimeoutsBeforeReconnect) + " calls in a row (" +
                            lost.detail + ")";
    device->close();
    if (!reconnect(device, why, true, notes, failure)) return nullptr;
    const Deadline retry =
        deadline == kNoDeadline ? kNoDeadline : Clock::now() + (deadline - started);
    return current()->opener()->open(service, retry, failure);
  }
  if (!connection_lost(lost.code)) {
    failure = std::move(lost);
    return nullptr;
  }
  if (!reconnect(device, lost.detail, true, notes, failure)) return nullptr;
  return current()->opener()->open(service, deadline, failure);
}

Device HeldDevice::share(std::function<void(std::string_view)> on_note,
                         const OutputLimits& limits) {
  auto opener = std::make_shared<SharedOpener>(shared_from_this(), use(), std::move(on_note));
  return Device(std::move(opener), options_.command_timeout, limits);
}

std::shared_ptr<void> HeldDevice::use() {
  {
    detail::MutexLock lock(mutex_);
    ++uses_;
    last_used_ = Clock::now();
  }
  auto self = shared_from_this();
  return std::shared_ptr<void>(nullptr, [self](void*) {
    detail::MutexLock lock(self->mutex_);
    --self->uses_;
    self->last_used_ = Clock::now();
  });
}

Clock::duration HeldDevice::idle_for() const {
  detail::MutexLock lock(mutex_);
  return uses_ > 0 ? Clock::duration::zero() : Clock::now() - last_used_;
}

void HeldDevice::close() {
  std::shared_ptr<Device> device;
  {
    detail::MutexLock lock(mutex_);
    closed_ = true;
    device = device_;
  }
  if (device) device->close();
}

}  // namespace adbwire::daemon
