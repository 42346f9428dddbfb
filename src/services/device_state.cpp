#include "adbwire/device_state.hpp"

#include <algorithm>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "connection/collected_output.hpp"
#include "services/device_command.hpp"
#include "services/device_values.hpp"
#include "services/property_list.hpp"

namespace adbwire {
namespace {

bool property_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == ':' || c == '@';
}

// The command's stdout within the bound of its kind, or its failure.
std::string shell_out(Device& device, const std::string& command, detail::OutputBound bound,
                      Deadline deadline, detail::Failure& failure) {
  ShellResult result = detail::shell_output(device, command, bound, deadline, failure);
  return failure ? std::string() : std::move(result.out);
}

// Opens `service` and reads its answer to the end. A connection lost after the open ends the
// answer: adbd restarts (or the device reboots) right after answering.
std::string ask(Device& device, const std::string& service, Deadline deadline,
                detail::Failure& failure) {
  deadline = device.resolve(deadline);
  std::error_code error;
  Stream stream = device.open(service, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  std::string answer = stream.read_all(deadline, error);
  if (error && error != errc::device_offline) {
    failure.set(error, "reading the answer of '" + service + "' from " + device.serial());
    return {};
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

std::string read_property(Device& device, std::string_view name, Deadline deadline,
                          detail::Failure& failure) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), property_char)) {
    failure.set(errc::invalid_argument, "'" + std::string(name) +
                                            "' is not a property name (letters, digits and "
                                            "._:@- only)");
    return {};
  }
  std::string value = shell_out(device, "getprop " + std::string(name), &OutputLimits::properties,
                                deadline, failure);
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
  return value;
}

std::map<std::string, std::string> read_properties(Device& device, Deadline deadline,
                                                   detail::Failure& failure) {
  const std::string out =
      shell_out(device, "getprop", &OutputLimits::properties, deadline, failure);
  if (failure) return {};
  return detail::parse_property_list(out, failure);
}

std::chrono::system_clock::time_point read_clock(Device& device, Deadline deadline,
                                                 detail::Failure& failure) {
  const std::string out =
      detail::run_command(device, "date +%s", deadline, detail::OutputCheck::exit_status, failure);
  if (failure) return {};
  return detail::parse_epoch_seconds(out, failure);
}

std::string ask_tcpip(Device& device, std::uint16_t port, Deadline deadline,
                      detail::Failure& failure) {
  if (port == 0) {
    failure.set(errc::invalid_argument, "tcpip needs a port from 1 to 65535 (adb uses 5555)");
    return {};
  }
  return ask(device, "tcpip:" + std::to_string(port), deadline, failure);
}

// The throwing and error_code overloads of a call that opens one adbd service.
std::string ask_or_throw(Device& device, const std::string& service, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return ask(device, service, deadline, f); });
}
std::string ask_or_code(Device& device, const std::string& service, Deadline deadline,
                        std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return ask(device, service, deadline, f); });
}

}  // namespace

std::string get_state(const Device& device) { return device.banner().system_type; }

std::string getprop(Device& device, std::string_view name, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return read_property(device, name, deadline, f); });
}
std::string getprop(Device& device, std::string_view name, Deadline deadline,
                    std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return read_property(device, name, deadline, f); });
}

std::map<std::string, std::string> getprops(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return read_properties(device, deadline, f); });
}
std::map<std::string, std::string> getprops(Device& device, Deadline deadline,
                                            std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return read_properties(device, deadline, f); });
}

std::chrono::system_clock::time_point device_time(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return read_clock(device, deadline, f); });
}
std::chrono::system_clock::time_point device_time(Device& device, Deadline deadline,
                                                  std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return read_clock(device, deadline, f); });
}

std::string reboot(Device& device, RebootTarget target, Deadline deadline) {
  return ask_or_throw(device, "reboot:" + std::string(target_name(target)), deadline);
}
std::string reboot(Device& device, RebootTarget target, Deadline deadline, std::error_code& error) {
  return ask_or_code(device, "reboot:" + std::string(target_name(target)), deadline, error);
}

std::string root(Device& device, Deadline deadline) {
  return ask_or_throw(device, "root:", deadline);
}
std::string root(Device& device, Deadline deadline, std::error_code& error) {
  return ask_or_code(device, "root:", deadline, error);
}

std::string unroot(Device& device, Deadline deadline) {
  return ask_or_throw(device, "unroot:", deadline);
}
std::string unroot(Device& device, Deadline deadline, std::error_code& error) {
  return ask_or_code(device, "unroot:", deadline, error);
}

std::string remount(Device& device, Deadline deadline) {
  return ask_or_throw(device, "remount:", deadline);
}
std::string remount(Device& device, Deadline deadline, std::error_code& error) {
  return ask_or_code(device, "remount:", deadline, error);
}

std::string tcpip(Device& device, std::uint16_t port, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return ask_tcpip(device, port, deadline, f); });
}
std::string tcpip(Device& device, std::uint16_t port, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return ask_tcpip(device, port, deadline, f); });
}

std::string usb(Device& device, Deadline deadline) {
  return ask_or_throw(device, "usb:", deadline);
}
std::string usb(Device& device, Deadline deadline, std::error_code& error) {
  return ask_or_code(device, "usb:", deadline, error);
}

}  // namespace adbwire
