// Device state: the connection state, system properties, the device clock, and adbd's state
// services (reboot, root/unroot, remount, tcpip, usb), each returning what the device said, word
// for word. The error_code overloads leave the message in last_error_detail() (error_detail.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// What `adb get-state` prints for this connection: the system type of the device's CNXN
// banner ("device", "recovery", "sideload", "bootloader", "rescue", …). No I/O.
std::string get_state(const Device& device);

// One system property (`getprop NAME`); "" when it is not set. Errors: invalid_argument
// (a name with characters outside [A-Za-z0-9._:@-]), and those of Device::shell.
std::string getprop(Device& device, std::string_view name, Deadline deadline = kDefaultDeadline);
std::string getprop(Device& device, std::string_view name, Deadline deadline,
                    std::error_code& error);

// Every property, parsed from `getprop` ("[key]: [value]" lines; multi-line values kept).
// Errors: parse_error (output that is not in that form), and those of Device::shell.
std::map<std::string, std::string> getprops(Device& device, Deadline deadline = kDefaultDeadline);
std::map<std::string, std::string> getprops(Device& device, Deadline deadline,
                                            std::error_code& error);

// The device clock (`date +%s`, whole seconds). Errors: parse_error (the device's `date` printed
// no number of seconds: the message quotes it), command_failed (`date` exited non-zero), and
// those of Device::shell. The error_code overload returns the epoch on error.
std::chrono::system_clock::time_point device_time(Device& device,
                                                  Deadline deadline = kDefaultDeadline);
std::chrono::system_clock::time_point device_time(Device& device, Deadline deadline,
                                                  std::error_code& error);

enum class RebootTarget { system, bootloader, recovery, sideload, sideload_auto_reboot, fastboot };

// The calls below open adbd's service (reboot:TARGET, root:, unroot:, remount:, tcpip:PORT,
// usb:) and return its answer ("restarting adbd as root\n", "adbd cannot run as root in
// production builds\n", …) unchanged: adbd reports refusals as text, not as a failed stream,
// so the caller decides from the text. The services that restart adbd or the device drop
// the connection afterwards: a connection lost after the service opened ends the answer
// (not an error), and the Device must be connected again. Errors: not_supported (the
// device refused the service), timeout, device_offline (before the service opened), closed.
std::string reboot(Device& device, RebootTarget target = RebootTarget::system,
                   Deadline deadline = kDefaultDeadline);
std::string reboot(Device& device, RebootTarget target, Deadline deadline, std::error_code& error);
std::string root(Device& device, Deadline deadline = kDefaultDeadline);
std::string root(Device& device, Deadline deadline, std::error_code& error);
std::string unroot(Device& device, Deadline deadline = kDefaultDeadline);
std::string unroot(Device& device, Deadline deadline, std::error_code& error);
std::string remount(Device& device, Deadline deadline = kDefaultDeadline);
std::string remount(Device& device, Deadline deadline, std::error_code& error);
// port 0 is invalid_argument.
std::string tcpip(Device& device, std::uint16_t port, Deadline deadline = kDefaultDeadline);
std::string tcpip(Device& device, std::uint16_t port, Deadline deadline, std::error_code& error);
std::string usb(Device& device, Deadline deadline = kDefaultDeadline);
std::string usb(Device& device, Deadline deadline, std::error_code& error);

}  // namespace adbwire
