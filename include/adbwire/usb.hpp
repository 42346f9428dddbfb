// Android devices on the local USB buses: a list, and a watcher that follows phones as they
// come and go. Connecting goes through Device::connect("usb:SERIAL"); adbwire claims the ADB
// interface itself with libusb (no adb server). On Linux a non-root user needs the udev rules
// in udev/ (see udev/README.md); `adbwire doctor` shows what is visible and accessible.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace adbwire {

// Whether this process can open a device's ADB interface right now.
enum class UsbAccess : std::uint8_t {
  ok,                 // openable and claimable
  permission_denied,  // the device node is not accessible to this user (udev rules)
  busy,               // another program claimed the interface, usually a running adb server
  error,              // anything else (see UsbDevice::problem)
};

// One USB device that exposes an ADB interface (class ff, subclass 42, protocol 01, on any
// configuration). Value type.
struct UsbDevice {
  std::string serial;  // iSerialNumber; from sysfs when the node is not accessible;
                       // empty when unknown
  std::uint16_t vendor_id = 0;
  std::uint16_t product_id = 0;
  std::uint8_t bus = 0;
  std::uint8_t address = 0;
  std::string port_path;  // "1-2.3": bus then hub ports, as sysfs and `adb devices -l`
  UsbAccess access = UsbAccess::error;
  std::string problem;  // empty when access is ok; else what to do about it

  // "usb:SERIAL", or "usb:" when the serial is unknown.
  std::string target() const;
  // "18d1:4ee7 SERIAL (bus 1, port 1-2.3)" for lists and messages.
  std::string describe() const;

  bool operator==(const UsbDevice&) const = default;
};

// Every device with an ADB interface, in bus order. Opens each briefly (claims and releases
// its interface) to tell accessible, permission_denied and busy apart; never disturbs a
// device another program holds. Errors: not_supported (no USB bus is visible: containers,
// VMs without USB passthrough, or libusb cannot start; the message says which), io_error.
// Thread safe.
std::vector<UsbDevice> list_usb_devices();
std::vector<UsbDevice> list_usb_devices(std::error_code& error);

// Follows the ADB devices on the USB buses: libusb hotplug events where the platform has
// them, polling elsewhere. The callback runs on the watcher's own thread, one call at a time,
// first with every device present at start (arrived), then with each change; it must not
// destroy the watcher. Thread safe: devices() may be called from any thread.
class UsbWatcher {
 public:
  enum class Change : std::uint8_t { arrived, left };
  using Callback = std::function<void(Change change, const UsbDevice& device)>;

  struct Options {
    // How often the bus is re-read when there are no hotplug events (and, with events, as a
    // safety net for a missed one).
    std::chrono::milliseconds poll_interval{1000};
  };

  // Starts watching. Errors: not_supported (no USB bus visible), io_error. The error_code form
  // leaves an inactive watcher (devices() is empty) on error.
  explicit UsbWatcher(Callback callback, Options options);
  explicit UsbWatcher(Callback callback) : UsbWatcher(std::move(callback), Options{}) {}
  UsbWatcher(Callback callback, Options options, std::error_code& error);

  // Stops the thread; blocks until a callback in progress returns.
  ~UsbWatcher();
  UsbWatcher(UsbWatcher&&) noexcept;
  UsbWatcher& operator=(UsbWatcher&&) noexcept;

  // The devices of the latest bus reading (its callbacks may still be running). A copy.
  std::vector<UsbDevice> devices() const;

  // True when the platform delivers hotplug events (else the watcher polls).
  bool uses_hotplug_events() const noexcept;

 private:
  struct Impl;
  friend struct UsbWatcherFactory;
  explicit UsbWatcher(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adbwire
