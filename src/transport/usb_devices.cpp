#include "transport/usb_devices.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>

#include "base/mutex.hpp"

namespace adbwire::transport {
namespace {

std::string hex4(std::uint16_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "%04x", value);
  return text;
}

bool is_adb_setting(const UsbInterfaceDescriptor& setting) {
  const auto triple =
      std::tie(setting.interface_class, setting.interface_subclass, setting.interface_protocol);
  return triple == std::tie(kAdbClass, kAdbSubclass, kAdbProtocol) ||
         triple == std::tie(kDbcClass, kDbcSubclass, kDbcProtocol);
}

std::optional<AdbInterfaceChoice> choose_in(const UsbConfigDescriptor& config) {
  for (const UsbInterfaceDescriptor& setting : config.interfaces) {
    if (!is_adb_setting(setting)) continue;
    const UsbEndpointDescriptor* in = nullptr;
    const UsbEndpointDescriptor* out = nullptr;
    int ins = 0;
    int outs = 0;
    for (const UsbEndpointDescriptor& endpoint : setting.endpoints) {
      if ((endpoint.attributes & kUsbTransferTypeMask) != kUsbTransferTypeBulk) continue;
      if ((endpoint.address & kUsbEndpointIn) != 0) {
        in = &endpoint;
        ++ins;
      } else {
        out = &endpoint;
        ++outs;
      }
    }
    if (ins != 1 || outs != 1) continue;
    if (out->max_packet_size == 0 || in->max_packet_size != out->max_packet_size) continue;
    return AdbInterfaceChoice{config.value, setting.number, setting.alternate_setting,
                              in->address,  out->address,   out->max_packet_size};
  }
  return std::nullopt;
}

std::string device_key(const UsbDevice& device) {
  return std::to_string(device.bus) + "/" + device.port_path + "/" + std::to_string(device.address);
}

}  // namespace

std::optional<AdbInterfaceChoice> find_adb_interface(const UsbDeviceRecord& device) {
  for (const UsbConfigDescriptor& config : device.configurations) {
    if (config.value != device.active_configuration) continue;
    if (auto choice = choose_in(config)) return choice;
  }
  for (const UsbConfigDescriptor& config : device.configurations) {
    if (config.value == device.active_configuration) continue;
    if (auto choice = choose_in(config)) return choice;
  }
  return std::nullopt;
}

std::string describe_usb_location(const UsbDeviceRecord& device) {
  return hex4(device.vendor_id) + ":" + hex4(device.product_id) + " (bus " +
         std::to_string(device.bus) + ", port " +
         (device.port_path.empty() ? "?" : device.port_path) + ")";
}

std::string usb_access_advice(UsbStatus status, const std::string& what,
                              const std::string& serial) {
  switch (status) {
    case UsbStatus::access:
      return "permission denied opening " + what +
             ": this user may not open the device node. Install adbwire's udev rules "
             "(`sudo udev/install`, see udev/README.md), then unplug and replug the device";
    case UsbStatus::busy:
      return what +
             " is claimed by another program, most likely a running adb server: stop "
             "it (`adb kill-server`) or go through it with the target server:" +
             (serial.empty() ? std::string("SERIAL") : serial);
    case UsbStatus::no_device:
      return what + " disappeared while being opened (unplugged or re-enumerating): retry";
    default:
      return "cannot open " + what + ": " + usb_status_text(status);
  }
}

errc usb_status_errc(UsbStatus status) noexcept {
  switch (status) {
    case UsbStatus::access:
      return errc::permission_denied;
    case UsbStatus::busy:
      return errc::busy;
    case UsbStatus::no_device:
      return errc::device_offline;
    case UsbStatus::not_supported:
      return errc::not_supported;
    default:
      return errc::io_error;
  }
}

std::vector<UsbDevice> list_adb_devices(UsbBackend& backend, detail::Failure& failure,
                                        const std::vector<UsbDevice>& known) {
  std::vector<UsbDeviceRecord> records;
  const UsbStatus status = backend.enumerate(records);
  if (status == UsbStatus::not_supported) {
    failure.set(errc::not_supported,
                "no USB bus visible (container/VM?): USB devices cannot be listed here");
    return {};
  }
  if (status != UsbStatus::ok) {
    failure.set(errc::io_error, std::string("cannot list USB devices: ") + usb_status_text(status));
    return {};
  }
  std::vector<UsbDevice> devices;
  for (const UsbDeviceRecord& record : records) {
    const auto choice = find_adb_interface(record);
    if (!choice) continue;
    const auto same = std::find_if(known.begin(), known.end(), [&record](const UsbDevice& device) {
      return device.access == UsbAccess::ok && device.bus == record.bus &&
             device.address == record.address && device.port_path == record.port_path &&
             device.vendor_id == record.vendor_id && device.product_id == record.product_id;
    });
    if (same != known.end()) {
      devices.push_back(*same);
      continue;
    }
    std::string serial;
    const UsbStatus probed = backend.probe(record, *choice, serial);
    if (probed == UsbStatus::no_device) continue;
    UsbDevice device;
    device.serial = serial.empty() ? record.serial_from_sysfs : serial;
    device.vendor_id = record.vendor_id;
    device.product_id = record.product_id;
    device.bus = record.bus;
    device.address = record.address;
    device.port_path = record.port_path;
    switch (probed) {
      case UsbStatus::ok:
        device.access = UsbAccess::ok;
        break;
      case UsbStatus::access:
        device.access = UsbAccess::permission_denied;
        break;
      case UsbStatus::busy:
        device.access = UsbAccess::busy;
        break;
      default:
        device.access = UsbAccess::error;
        break;
    }
    if (device.access != UsbAccess::ok) {
      device.problem =
          usb_access_advice(probed, "USB device " + describe_usb_location(record), device.serial);
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

std::shared_ptr<UsbBackend> default_usb_backend(detail::Failure& failure) {
  std::string why;
  auto backend = make_libusb_backend(why);
  if (!backend) {
    failure.set(
        errc::not_supported,
        "no USB bus visible (container/VM?): USB devices cannot be listed here (" + why + ")");
  }
  return backend;
}

std::vector<UsbListChange> diff_usb_lists(const std::vector<UsbDevice>& before,
                                          const std::vector<UsbDevice>& after) {
  std::vector<UsbListChange> changes;
  auto find = [](const std::vector<UsbDevice>& list, const UsbDevice& device) {
    for (const UsbDevice& candidate : list) {
      if (device_key(candidate) == device_key(device)) return &candidate;
    }
    return static_cast<const UsbDevice*>(nullptr);
  };
  for (const UsbDevice& old : before) {
    const UsbDevice* now = find(after, old);
    if (now == nullptr || !(*now == old)) changes.push_back({UsbWatcher::Change::left, old});
  }
  for (const UsbDevice& now : after) {
    const UsbDevice* old = find(before, now);
    if (old == nullptr || !(*old == now)) changes.push_back({UsbWatcher::Change::arrived, now});
  }
  return changes;
}

}  // namespace adbwire::transport

namespace adbwire {

std::string UsbDevice::target() const { return "usb:" + serial; }

std::string UsbDevice::describe() const {
  char ids[16];
  std::snprintf(ids, sizeof ids, "%04x:%04x", vendor_id, product_id);
  return std::string(ids) + " " + (serial.empty() ? "(serial unknown)" : serial) + " (bus " +
         std::to_string(bus) + ", port " + (port_path.empty() ? "?" : port_path) + ")";
}

std::vector<UsbDevice> list_usb_devices() {
  detail::Failure failure;
  auto backend = transport::default_usb_backend(failure);
  auto devices =
      backend ? transport::list_adb_devices(*backend, failure) : std::vector<UsbDevice>{};
  failure.throw_if_failed();
  return devices;
}

std::vector<UsbDevice> list_usb_devices(std::error_code& error) {
  detail::Failure failure;
  auto backend = transport::default_usb_backend(failure);
  auto devices =
      backend ? transport::list_adb_devices(*backend, failure) : std::vector<UsbDevice>{};
  detail::report(std::move(failure), error);
  return devices;
}

struct UsbWatcher::Impl {
  Impl(std::shared_ptr<transport::UsbBackend> usb, Callback on_change, Options watch_options)
      : backend(std::move(usb)), callback(std::move(on_change)), options(watch_options) {}

  ~Impl() {
    {
      detail::MutexLock lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (thread.joinable()) thread.join();
    token.reset();
  }

  void run(std::vector<UsbDevice> initial) {
    for (const UsbDevice& device : initial) callback(Change::arrived, device);
    detail::MutexLock lock(mutex);
    for (;;) {
      wake.wait_for(lock.native(), options.poll_interval,
                    [&]() ADBWIRE_REQUIRES(mutex) { return stopping || changed; });
      if (stopping) return;
      changed = false;
      const std::vector<UsbDevice> known = devices;
      lock.unlock();
      detail::Failure failure;
      std::vector<UsbDevice> now = transport::list_adb_devices(*backend, failure, known);
      lock.lock();
      // A failed reading (the bus went away meanwhile) keeps the last list; the next try
      // decides.
      if (failure) continue;
      const auto changes = transport::diff_usb_lists(devices, now);
      devices = std::move(now);
      lock.unlock();
      for (const auto& change : changes) callback(change.change, change.device);
      lock.lock();
    }
  }

  const std::shared_ptr<transport::UsbBackend> backend;
  const Callback callback;
  const Options options;
  std::shared_ptr<void> token;  // hotplug registration; nullptr when polling
  std::thread thread;

  mutable detail::Mutex mutex;
  std::condition_variable wake;
  bool stopping ADBWIRE_GUARDED_BY(mutex) = false;
  bool changed ADBWIRE_GUARDED_BY(mutex) = false;
  std::vector<UsbDevice> devices ADBWIRE_GUARDED_BY(mutex);
};

UsbWatcher UsbWatcherFactory::make(std::shared_ptr<transport::UsbBackend> backend,
                                   UsbWatcher::Callback callback, UsbWatcher::Options options,
                                   detail::Failure& failure) {
  auto impl = std::make_unique<UsbWatcher::Impl>(std::move(backend), std::move(callback), options);
  UsbWatcher::Impl* raw = impl.get();
  // Registered before the first reading, so a phone arriving in between is not missed.
  raw->token = raw->backend->watch([raw] {
    {
      detail::MutexLock lock(raw->mutex);
      raw->changed = true;
    }
    raw->wake.notify_all();
  });
  std::vector<UsbDevice> initial = transport::list_adb_devices(*raw->backend, failure);
  if (failure) return UsbWatcher(std::unique_ptr<UsbWatcher::Impl>());
  {
    detail::MutexLock lock(raw->mutex);
    raw->devices = initial;
  }
  raw->thread =
      std::thread([raw, initial = std::move(initial)]() mutable { raw->run(std::move(initial)); });
  return UsbWatcher(std::move(impl));
}

UsbWatcher::UsbWatcher(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}

UsbWatcher::UsbWatcher(Callback callback, Options options) {
  detail::Failure failure;
  auto backend = transport::default_usb_backend(failure);
  if (backend)
    *this = UsbWatcherFactory::make(std::move(backend), std::move(callback), options, failure);
  failure.throw_if_failed();
}

UsbWatcher::UsbWatcher(Callback callback, Options options, std::error_code& error) {
  detail::Failure failure;
  auto backend = transport::default_usb_backend(failure);
  if (backend)
    *this = UsbWatcherFactory::make(std::move(backend), std::move(callback), options, failure);
  detail::report(std::move(failure), error);
}

UsbWatcher::~UsbWatcher() = default;
UsbWatcher::UsbWatcher(UsbWatcher&&) noexcept = default;
UsbWatcher& UsbWatcher::operator=(UsbWatcher&&) noexcept = default;

std::vector<UsbDevice> UsbWatcher::devices() const {
  if (!impl_) return {};
  detail::MutexLock lock(impl_->mutex);
  return impl_->devices;
}

bool UsbWatcher::uses_hotplug_events() const noexcept { return impl_ && impl_->token != nullptr; }

}  // namespace adbwire
