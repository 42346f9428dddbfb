#include "cli/doctor_usb.hpp"

#include "adbwire/error.hpp"

namespace adbwire::cli {

std::string usb_report(const std::vector<UsbDevice>& devices, const std::error_code& error) {
  std::string out = "USB devices with an ADB interface:\n";
  if (error == errc::not_supported) {
    return out + "  no USB bus visible (container/VM?): USB devices cannot be listed here\n";
  }
  if (error) return out + "  cannot list USB devices: " + error.message() + "\n";
  if (devices.empty()) {
    return out +
           "  none: plug a phone in, unlock it and turn on USB debugging (Developer options)\n";
  }
  for (const UsbDevice& device : devices) {
    out += "  " + device.describe() + ": ";
    if (device.access != UsbAccess::ok) {
      out += "NOT accessible: " + device.problem + "\n";
    } else if (device.serial.empty()) {
      // "usb:" alone means "the first ADB device on USB", which is this one only by chance.
      out +=
          "accessible, but its serial is unknown: no usb:SERIAL target names it (-s usb: "
          "takes the first USB device with ADB)\n";
    } else {
      out += "accessible, use -s " + device.target() + "\n";
    }
  }
  return out;
}

}  // namespace adbwire::cli
