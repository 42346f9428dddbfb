#include "cli/device_selection.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/target.hpp"
#include "adbwire/usb.hpp"
#include "cli/connect.hpp"
#include "daemon/client.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

struct Candidate {
  std::string target;
  bool usb = false;
};

// adb's kTransportLocal: a device the server reaches over TCP (HOST:PORT) or an emulator.
bool is_local(const std::string& serial) {
  return serial.find(':') != std::string::npos || serial.starts_with("emulator-");
}

std::optional<std::uint64_t> parse_transport_id(const std::string& text) {
  std::uint64_t id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

}  // namespace

std::vector<protocol::DeviceEntry> daemon_devices(const GlobalOptions& globals,
                                                  detail::Failure& failure) {
  std::vector<protocol::DeviceEntry> entries;
  if (globals.no_daemon || globals.full_program.empty()) return entries;
  std::string reply;
  if (!daemon::ask_daemon(globals.full_program, nullptr, "host:devices-l", deadline_after(5s),
                          reply, failure)) {
    return entries;
  }
  std::string detail;
  if (const std::error_code error = protocol::parse_device_list(reply, entries, detail)) {
    failure.set(error, "the adbwire daemon's device list: " + detail);
    entries.clear();
  }
  for (protocol::DeviceEntry& entry : entries) {
    if (entry.transport_id) *entry.transport_id += kDaemonTransportIds;
  }
  return entries;
}

std::string select_target(const GlobalOptions& globals) {
  const bool narrowed = globals.usb_only || globals.tcp_only || !globals.transport_id.empty();
  if (!globals.serial.empty()) return globals.serial;
  if (!narrowed) {
    if (std::string serial = default_serial(); !serial.empty()) return serial;
  }
  std::optional<std::uint64_t> transport_id;
  if (!globals.transport_id.empty()) {
    transport_id = parse_transport_id(globals.transport_id);
    if (!transport_id) throw Error(errc::invalid_argument, "invalid transport id");
  }

  // A server that does not answer has no devices for us (adbwire never starts one).
  std::vector<protocol::DeviceEntry> listed;
  std::error_code error;
  const AdbServer server(server_address(globals), 2s, error);
  if (!error) listed = server.devices(true, deadline_after(5s), error);
  if (error) listed.clear();

  std::vector<Candidate> candidates;
  for (const protocol::DeviceEntry& entry : listed) {
    if (transport_id && entry.transport_id != transport_id) continue;
    candidates.push_back({entry.serial, !is_local(entry.serial)});
  }
  // The daemon's devices the server does not list (a `connect`ed one, a paired phone), with the
  // ids `devices -l` shows them by (kDaemonTransportIds): the server's id wins a tie.
  const bool by_server = !candidates.empty();
  detail::Failure ignored;
  for (const protocol::DeviceEntry& entry : daemon_devices(globals, ignored)) {
    const bool in_server = std::any_of(listed.begin(), listed.end(), [&](const auto& other) {
      return other.serial == entry.serial;
    });
    if (in_server) continue;
    listed.push_back(entry);
    if (transport_id && (by_server || entry.transport_id != transport_id)) continue;
    // Named as the daemon knows it: HOST:PORT, a phone's mDNS name, else a USB serial.
    std::error_code parse_error;
    const Target target = Target::parse(entry.serial, parse_error);
    const bool usb =
        parse_error || target.kind() == Target::Kind::server || target.kind() == Target::Kind::usb;
    candidates.push_back({usb ? "usb:" + entry.serial : entry.serial, usb});
  }
  if (transport_id) {
    if (candidates.empty()) {
      throw Error(errc::not_found,
                  "no device with transport id '" + std::to_string(*transport_id) + "'");
    }
    return by_server ? "server:" + candidates.front().target : candidates.front().target;
  }
  std::vector<UsbDevice> usb;
  try {
    usb = list_usb_devices();
  } catch (const Error&) {
    // No USB bus (a container, a VM): the server's devices are all there is.
  }
  for (const UsbDevice& device : usb) {
    const bool held = std::any_of(listed.begin(), listed.end(), [&](const auto& entry) {
      return !device.serial.empty() && entry.serial == device.serial;
    });
    if (!held) candidates.push_back({device.target(), true});
  }
  std::erase_if(candidates, [&](const Candidate& c) {
    return (globals.usb_only && !c.usb) || (globals.tcp_only && c.usb);
  });
  // adb's sentences, word for word on the first line (scripts match them), then the way out.
  const char* kind = globals.usb_only   ? "device"
                     : globals.tcp_only ? "emulator"
                                        : "device/emulator";
  const std::string how =
      "\nadbwire: name one with -s TARGET or $ANDROID_SERIAL (tcp:HOST[:PORT], HOST:PORT, "
      "usb:[SERIAL], server:[HOST:PORT/]SERIAL, mdns:NAME or a serial `adbwire devices` lists)";
  if (candidates.empty()) {
    throw Error(errc::not_found, (globals.usb_only   ? "no devices found"
                                  : globals.tcp_only ? "no emulators found"
                                                     : "no devices/emulators found") +
                                     how);
  }
  if (candidates.size() > 1)
    throw Error(errc::not_found, std::string("more than one ") + kind + how);
  return candidates.front().target;
}

}  // namespace adbwire::cli
