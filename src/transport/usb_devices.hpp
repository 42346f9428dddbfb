// Finding ADB devices on a UsbBackend: interface selection, the device list with access
// checks, the messages for inaccessible devices, and the watcher behind adbwire::UsbWatcher.
// Internal.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adbwire/usb.hpp"
#include "base/failure.hpp"
#include "transport/usb_backend.hpp"

namespace adbwire::transport {

// ADB: class ff / subclass 42 / protocol 01. USB debug class (DbC) dc / 02 / 01 too, as AOSP.
inline constexpr std::uint8_t kAdbClass = 0xff;
inline constexpr std::uint8_t kAdbSubclass = 0x42;
inline constexpr std::uint8_t kAdbProtocol = 0x01;
inline constexpr std::uint8_t kDbcClass = 0xdc;
inline constexpr std::uint8_t kDbcSubclass = 0x02;
inline constexpr std::uint8_t kDbcProtocol = 0x01;

// The first ADB interface setting with exactly one bulk IN and one bulk OUT endpoint of the
// same wMaxPacketSize, searching the active configuration first, then the others in order.
std::optional<AdbInterfaceChoice> find_adb_interface(const UsbDeviceRecord& device);

// "18d1:4ee7 (bus 1, port 1-2.3)".
std::string describe_usb_location(const UsbDeviceRecord& device);

// What to do about a device that cannot be opened: access (udev rules) and busy (an adb
// server) get their own advice. `what` names the device ("USB device 18d1:4ee7 …").
std::string usb_access_advice(UsbStatus status, const std::string& what, const std::string& serial);
// The errc for an open/probe status: permission_denied, busy, device_offline, io_error.
errc usb_status_errc(UsbStatus status) noexcept;

// The device list behind list_usb_devices(): every ADB device with its access state.
// failure: not_supported (the backend cannot enumerate), io_error. A device found accessible
// in `known` (an earlier reading) at the same bus, port and address is taken from there, not
// opened again: re-probing would claim the interface every reading, and a phone this process
// has since connected to would then read as busy. Others (busy, no permission) are probed
// again, so a freed or newly permitted phone shows up.
std::vector<UsbDevice> list_adb_devices(UsbBackend& backend, detail::Failure& failure,
                                        const std::vector<UsbDevice>& known = {});

// libusb, or not_supported with the plain "no USB bus visible" explanation.
std::shared_ptr<UsbBackend> default_usb_backend(detail::Failure& failure);

// Differences between two device lists, keyed by bus and port path plus address (a replugged
// phone gets a new address, so it leaves and arrives).
struct UsbListChange {
  UsbWatcher::Change change = UsbWatcher::Change::arrived;
  UsbDevice device;
};
std::vector<UsbListChange> diff_usb_lists(const std::vector<UsbDevice>& before,
                                          const std::vector<UsbDevice>& after);

}  // namespace adbwire::transport

namespace adbwire {

// Builds watchers on a given backend (tests pass a simulated bus).
struct UsbWatcherFactory {
  static UsbWatcher make(std::shared_ptr<transport::UsbBackend> backend,
                         UsbWatcher::Callback callback, UsbWatcher::Options options,
                         detail::Failure& failure);
};

}  // namespace adbwire
