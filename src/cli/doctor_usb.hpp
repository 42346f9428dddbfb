// The USB section of `adbwire doctor`, as text: split from doctor_command.cpp so it can be
// tested with a list of devices made without a USB bus.
#pragma once

#include <string>
#include <system_error>
#include <vector>

#include "adbwire/usb.hpp"

namespace adbwire::cli {

// "USB devices with an ADB interface:" and one indented line per device: accessible with the
// -s target that reaches it, or NOT accessible with what to do (UsbDevice::problem). error is
// what list_usb_devices() set: not_supported (no bus) and other failures are said instead of
// the list.
std::string usb_report(const std::vector<UsbDevice>& devices, const std::error_code& error = {});

}  // namespace adbwire::cli
