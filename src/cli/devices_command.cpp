// adbwire devices [-l] [TARGET…]: every device adbwire can reach, in adb's format (scripts parse
// it): those the adb server lists, those this user's daemon holds, the phones on this machine's
// USB bus neither holds, and each direct TCP target named (as arguments or with -s) not listed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/target.hpp"
#include "adbwire/usb.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/device_selection.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

struct DevicesArgs {
  bool long_format = false;
  bool offer_key = false;
  double grace = 1.0;
  std::vector<std::string> targets;
};

struct Row {
  std::string serial;
  std::string state;
  std::string details;  // -l: devpath, product:, model:, device:, transport_id:
};

std::string details_of(const protocol::DeviceEntry& entry) {
  std::string out;
  const auto add = [&out](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    if (!out.empty()) out += ' ';
    out += std::string(key) + value;
  };
  add("", entry.devpath);
  add("product:", entry.product);
  add("model:", entry.model);
  add("device:", entry.device);
  if (entry.transport_id) add("transport_id:", std::to_string(*entry.transport_id));
  return out;
}

// A direct target's state: connecting is the only way to know it. A probe offers our public
// key only when asked (each offer pops "Allow USB debugging?" on a phone), and then waits a
// short grace for a device that accepts it a moment later.
Row probe(const Target& target, const DevicesArgs& args, ConnectOptions options) {
  options.connect_timeout = 3s;
  options.offer_public_key = args.offer_key;
  options.auth_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(args.grace));
  Row row{target.to_string().substr(4), "device", {}};
  try {
    const Device device = Device::connect(target.to_string(), options);
    const protocol::Banner& banner = device.banner();
    // Named as the server's -l list names them.
    constexpr std::pair<const char*, const char*> kFields[] = {{"ro.product.name", "product:"},
                                                               {"ro.product.model", "model:"},
                                                               {"ro.product.device", "device:"}};
    for (const auto& [key, label] : kFields) {
      const std::string_view value = banner.property(key);
      if (value.empty()) continue;
      if (!row.details.empty()) row.details += ' ';
      row.details += std::string(label) + std::string(value);
    }
  } catch (const Error& e) {
    row.state = e.code() == errc::unauthorized ? "unauthorized" : "offline";
    // Why, on stderr: the table has no room for it (an unauthorized device's message names the
    // key fingerprint to look for on its prompt).
    print_error("adbwire: " + std::string(e.what()));
  }
  return row;
}

// A phone on the USB bus, as far as opening it shows (connecting, which could raise the
// phone's authorization prompt, is left to the user): available, no permissions, busy.
Row usb_row(const UsbDevice& device) {
  Row row{device.serial.empty() ? "(no serial number)" : device.serial, "available",
          "usb:" + (device.port_path.empty() ? std::to_string(device.bus) : device.port_path)};
  switch (device.access) {
    case UsbAccess::ok:
      break;
    case UsbAccess::permission_denied:
      row.state = "no permissions";
      break;
    case UsbAccess::busy:
      row.state = "busy";
      break;
    case UsbAccess::error:
      row.state = "offline";
      break;
  }
  if (!device.problem.empty()) print_error("adbwire: " + device.describe() + ": " + device.problem);
  return row;
}

// adb's list, byte for byte (transport.cpp append_transport, then the client's header and blank
// line): "SERIAL\tSTATE", or with -l the serial padded to 22 and the details after the state.
void print_rows(const std::vector<Row>& rows, bool long_format) {
  cli::print("List of devices attached\n");
  for (const Row& row : rows) {
    if (!long_format) {
      print_fields({row.serial, row.state});
      continue;
    }
    std::string text = row.serial;
    if (row.serial.size() < 22) text += std::string(22 - row.serial.size(), ' ');
    text += " " + row.state;
    if (!row.details.empty()) text += " " + row.details;
    cli::print(text + "\n");
  }
  cli::print("\n");
}

}  // namespace

void add_devices_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<DevicesArgs>();
  auto* cmd = app.add_subcommand(
      "devices",
      "list devices from every source: the adb server (-H/-P), the USB bus and the direct TCP "
      "targets named");
  cmd->add_flag("-l", args->long_format, "also show devpath, product, model, device, transport id");
  cmd->add_flag("--offer-key", args->offer_key,
                "offer this computer's public key to direct targets that do not know it (the "
                "device shows \"Allow USB debugging?\"); by default a probe never does");
  cmd->add_option("--grace", args->grace,
                  "seconds a direct target may take to accept the offered key")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("targets", args->targets,
                  "direct targets to probe: tcp:HOST[:PORT] or HOST:PORT");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      std::vector<Target> direct;
      std::vector<std::string> named = args->targets;
      if (!globals.serial.empty()) named.push_back(globals.serial);
      for (const std::string& text : named) {
        const Target target = Target::parse(text);
        if (target.kind() != Target::Kind::tcp) {
          throw Error(errc::invalid_argument,
                      "devices probes direct targets (tcp:HOST[:PORT]); '" + text +
                          "' goes through the adb server, which is listed anyway");
        }
        direct.push_back(target);
      }
      const ConnectOptions connect = connect_options(globals);
      if (!connect.record.empty() && direct.size() != 1) {
        throw Error(errc::invalid_argument,
                    "--record with devices records one direct probe: name exactly one "
                    "tcp:HOST[:PORT] target (the adb server's list is not an ADB connection)");
      }

      std::vector<Row> rows;
      const AdbServer server(server_address(globals), 5s);
      bool server_answered = true;
      try {
        for (const protocol::DeviceEntry& entry : server.devices(true))
          rows.push_back({entry.serial, entry.state_text, details_of(entry)});
      } catch (const Error& e) {
        // adbwire never starts a server: say why, and go on with the direct targets.
        server_answered = false;
        print_error("adbwire: " + std::string(e.what()));
      }
      // The daemon's devices (a `connect`ed one, a paired phone), each once: a device the server
      // lists too is its row. Their transport ids are kDaemonTransportIds past the daemon's, so
      // `-t` tells them from the server's.
      detail::Failure daemon_failure;
      for (protocol::DeviceEntry& entry : daemon_devices(globals, daemon_failure)) {
        const bool in_server = std::any_of(
            rows.begin(), rows.end(), [&](const Row& row) { return row.serial == entry.serial; });
        if (in_server) continue;
        rows.push_back({entry.serial, entry.state_text, details_of(entry)});
      }
      if (daemon_failure) print_error("adbwire: " + daemon_failure.detail);
      // Phones an adb server holds show here as busy too: both rows say how each is reached.
      std::vector<UsbDevice> usb;
      try {
        usb = list_usb_devices();
      } catch (const Error&) {
        // No bus in containers and VMs is normal, and adb says nothing of it either.
      }
      // A phone the server holds, or a target it lists, is one row: a script counts devices.
      const auto listed = [&rows](const std::string& serial) {
        return std::any_of(rows.begin(), rows.end(),
                           [&serial](const Row& row) { return row.serial == serial; });
      };
      for (const UsbDevice& device : usb) {
        if (device.serial.empty() || !listed(device.serial)) rows.push_back(usb_row(device));
      }
      for (const Target& target : direct) {
        if (!listed(target.to_string().substr(4))) rows.push_back(probe(target, *args, connect));
      }
      print_rows(rows, args->long_format);
      return !server_answered && direct.empty() && usb.empty() && rows.empty() ? 1 : 0;
    };
  });
}

}  // namespace adbwire::cli
