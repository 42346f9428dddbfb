#include "adbwire/device_state.hpp"

#include <algorithm>
#include <functional>

#include "adbwire/error.hpp"
#include "connection/device_access.hpp"

namespace adbwire {
namespace {

bool property_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == ':' || c == '@';
}

// Runs a throwing body and turns an Error into `error`.
template <typename T>
T no_throw(std::error_code& error, const std::function<T()>& body) {
  error.clear();
  try {
    return body();
  } catch (const Error& e) {
    error = e.code();
    return T{};
  }
}

// Opens `service` and reads its answer to the end. A connection lost after the open ends the
// answer: adbd restarts (or the device reboots) right after answering.
std::string ask(Device& device, const std::string& service, Deadline deadline) {
  deadline = detail::DeviceAccess::resolve(device, deadline);
  Stream stream = device.open(service, deadline);
  std::error_code error;
  std::string answer = stream.read_all(deadline, error);
  if (error && error != errc::device_offline) {
    throw Error(error, "reading the answer of '" + service + "' from " + device.serial());
  }
  return answer;
}

std::string_view target_name(RebootTarget target) {
  switch (target) {
    case RebootTarget::system:
      return "";
    case RebootTarget::bootloader:
      return "bootloader";
    case RebootTarget::recovery:
      return "recovery";
    case RebootTarget::sideload:
      return "sideload";
    case RebootTarget::sideload_auto_reboot:
      return "sideload-auto-reboot";
    case RebootTarget::fastboot:
      return "fastboot";
  }
  return "";
}

}  // namespace

std::string get_state(const Device& device) { return device.banner().system_type; }

std::string getprop(Device& device, std::string_view name, Deadline deadline) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), property_char)) {
    throw Error(
        errc::invalid_argument,
        "'" + std::string(name) + "' is not a property name (letters, digits and ._:@- only)");
  }
  std::string value = device.shell("getprop " + std::string(name), deadline).out;
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
  return value;
}

std::string getprop(Device& device, std::string_view name, Deadline deadline,
                    std::error_code& error) {
  return no_throw<std::string>(error, [&] { return getprop(device, name, deadline); });
}

std::map<std::string, std::string> getprops(Device& device, Deadline deadline) {
  const std::string out = device.shell("getprop", deadline).out;
  std::map<std::string, std::string> props;
  std::size_t at = 0;
  while (at < out.size()) {
    // "[key]: [value]" where value may span lines; it ends at "]\n" (or "]" at the end).
    if (out[at] == '\n' || out[at] == '\r') {
      ++at;
      continue;
    }
    const std::size_t key_end = out.find("]: [", at);
    if (out[at] != '[' || key_end == std::string::npos) {
      throw Error(errc::parse_error,
                  "getprop printed a line that is not '[key]: [value]' at byte " +
                      std::to_string(at) + ": " + out.substr(at, 60));
    }
    std::size_t value_end = out.find("]\n", key_end + 4);
    if (value_end == std::string::npos) value_end = out.rfind(']');
    if (value_end == std::string::npos || value_end < key_end + 4) {
      throw Error(errc::parse_error, "getprop output ends inside the value of " +
                                         out.substr(at + 1, key_end - at - 1));
    }
    std::string value = out.substr(key_end + 4, value_end - key_end - 4);
    if (!value.empty() && value.back() == '\r') value.pop_back();
    props[out.substr(at + 1, key_end - at - 1)] = std::move(value);
    at = value_end + 1;
  }
  return props;
}

std::map<std::string, std::string> getprops(Device& device, Deadline deadline,
                                            std::error_code& error) {
  return no_throw<std::map<std::string, std::string>>(error,
                                                      [&] { return getprops(device, deadline); });
}

std::string reboot(Device& device, RebootTarget target, Deadline deadline) {
  return ask(device, "reboot:" + std::string(target_name(target)), deadline);
}
std::string reboot(Device& device, RebootTarget target, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return reboot(device, target, deadline); });
}

std::string root(Device& device, Deadline deadline) { return ask(device, "root:", deadline); }
std::string root(Device& device, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return root(device, deadline); });
}

std::string unroot(Device& device, Deadline deadline) { return ask(device, "unroot:", deadline); }
std::string unroot(Device& device, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return unroot(device, deadline); });
}

std::string remount(Device& device, Deadline deadline) { return ask(device, "remount:", deadline); }
std::string remount(Device& device, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return remount(device, deadline); });
}

std::string tcpip(Device& device, std::uint16_t port, Deadline deadline) {
  if (port == 0)
    throw Error(errc::invalid_argument, "tcpip needs a port from 1 to 65535 (adb uses 5555)");
  return ask(device, "tcpip:" + std::to_string(port), deadline);
}
std::string tcpip(Device& device, std::uint16_t port, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return tcpip(device, port, deadline); });
}

std::string usb(Device& device, Deadline deadline) { return ask(device, "usb:", deadline); }
std::string usb(Device& device, Deadline deadline, std::error_code& error) {
  return no_throw<std::string>(error, [&] { return usb(device, deadline); });
}

}  // namespace adbwire
