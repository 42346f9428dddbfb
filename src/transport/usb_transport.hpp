// Direct USB transport: the byte-stream Transport over a claimed ADB interface, and the
// usb:[SERIAL] target resolution that finds and claims it.
#pragma once

#include <asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"
#include "transport/transport.hpp"
#include "transport/usb_backend.hpp"

namespace adbwire::transport {

// A Transport over `pipe` (see usb_framing.hpp for how bytes map to transfers). A reader and
// a writer thread make the blocking transfers and post completions to `io`. A vanished or
// unrecoverably stalled device fails the read and write in progress with a UsbLinkError
// (the runtime then reports device_offline to every waiting caller at once). Destroying it
// joins both threads (within one transfer slice) and then releases the pipe.
std::unique_ptr<Transport> make_usb_transport(asio::io_context& io, std::unique_ptr<BulkPipe> pipe,
                                              std::string description);

// A usb:[SERIAL] target resolved to one device; calling it claims the device and returns its
// transport (a connection::TransportFactory). Copyable; keeps the backend alive.
class UsbConnector {
 public:
  // Finds the device: `serial` empty means the only ADB device on the bus. Errors (failure):
  // not_supported (no USB bus visible), not_found (no ADB device, or none with that serial:
  // the message lists what was seen), invalid_argument (several devices and no serial: lists
  // them), permission_denied (the only candidates cannot be opened: points to udev/README.md).
  static std::optional<UsbConnector> find(std::shared_ptr<UsbBackend> backend,
                                          const std::string& serial, detail::Failure& failure);
  // The same on libusb.
  static std::optional<UsbConnector> find(const std::string& serial, detail::Failure& failure);

  // The device's serial (for Device::serial()) and "usb:SERIAL".
  const std::string& serial() const noexcept { return serial_; }
  std::string target() const { return "usb:" + serial_; }

  // Opens and claims the interface. Errors: permission_denied (names the device and
  // udev/README.md), busy (an adb server holds it: offers server:SERIAL), device_offline
  // (gone meanwhile), io_error. The deadline is not needed: opening does not wait on the
  // device.
  std::unique_ptr<Transport> operator()(asio::io_context& io, Deadline deadline,
                                        detail::Failure& failure) const;

 private:
  UsbConnector(std::shared_ptr<UsbBackend> backend, UsbDeviceRecord record,
               AdbInterfaceChoice choice, std::string serial);

  std::shared_ptr<UsbBackend> backend_;
  UsbDeviceRecord record_;
  AdbInterfaceChoice choice_;
  std::string serial_;
};

}  // namespace adbwire::transport
