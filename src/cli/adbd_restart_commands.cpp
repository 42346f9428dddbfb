// root, unroot, remount and usb: one adbd service each that restarts adbd (or remounts) and
// answers a line, printed as the device wrote it. One table, since only the call differs.
#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/device_state.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct AdbdRestart {
  const char* name;
  const char* help;
  std::string (*call)(Device& device, Deadline deadline);  // the throwing overload
};

constexpr AdbdRestart kAdbdRestarts[] = {
    {"root", "restart adbd with root permissions (adb root); prints the device's answer", root},
    {"unroot", "restart adbd without root permissions (adb unroot); prints the device's answer",
     unroot},
    {"remount",
     "remount /system, /vendor … read-write (adb remount, needs root); prints the device's answer",
     remount},
    {"usb", "restart adbd listening on USB (adb usb); prints the device's answer", usb},
};

}  // namespace

void add_adbd_restart_commands(CLI::App& app, const GlobalOptions& globals, Run& run) {
  for (const AdbdRestart& restart : kAdbdRestarts) {
    auto timeout = std::make_shared<TimeoutOption>();
    auto* cmd = app.add_subcommand(restart.name, restart.help);
    add_timeout_option(*cmd, *timeout);
    cmd->callback([timeout, &restart, &globals, &run] {
      run = [timeout, &restart, &globals] {
        Device device = connect_device(globals);
        print(restart.call(device, timeout->deadline()));
        return 0;
      };
    });
  }
}

}  // namespace adbwire::cli
