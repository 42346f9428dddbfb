// adbwire get-state, get-serialno, get-devpath: adb's passthrough commands, for the device the
// call means (device_selection.hpp), each line as adb prints it.
#include <cstdio>
#include <string>

#include "adbwire/adb_server.hpp"
#include "adbwire/device_state.hpp"
#include "adbwire/target.hpp"
#include "adbwire/usb.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/device_selection.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

// The serial adb would show for target: HOST:PORT for a TCP device, else the serial.
std::string adb_serial(const Target& target) {
  return target.kind() == Target::Kind::tcp ? target.to_string().substr(4) : target.serial();
}

// adb's devpath: the USB port path ("usb:1-2.3"), "unknown" for a device not on USB.
std::string devpath(const Target& target, const GlobalOptions& globals) {
  if (target.kind() == Target::Kind::server) {
    const AdbServer server(server_address(globals));
    for (const protocol::DeviceEntry& entry : server.devices(true)) {
      if (entry.serial == target.serial() && !entry.devpath.empty()) return entry.devpath;
    }
  }
  if (target.kind() == Target::Kind::usb) {
    for (const UsbDevice& device : list_usb_devices()) {
      if (device.serial == target.serial() && !device.port_path.empty())
        return "usb:" + device.port_path;
    }
  }
  return "unknown";
}

}  // namespace

void add_get_state_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("get-state",
                     "print the device's state: device, recovery, sideload, bootloader …")
      ->callback([&globals, &run] {
        run = [&globals] {
          Device device = connect_device(globals);
          print(get_state(device) + "\n");
          return 0;
        };
      });
  // Both name the device the call means, once it answers (as adb: one not there is an error).
  const auto add_naming = [&app, &globals, &run](
                              const char* name, const char* help,
                              std::string (*line)(const Target&, const GlobalOptions&)) {
    app.add_subcommand(name, help)->callback([&globals, &run, line] {
      run = [&globals, line] {
        GlobalOptions chosen = globals;
        chosen.serial = select_target(globals);
        connect_device(chosen);
        print(line(Target::parse(chosen.serial), chosen) + "\n");
        return 0;
      };
    });
  };
  add_naming("get-serialno", "print the device's serial, as adb names it",
             [](const Target& target, const GlobalOptions&) { return adb_serial(target); });
  add_naming("get-devpath", "print the device's USB port path, or unknown", devpath);
}

}  // namespace adbwire::cli
