#include <cstdio>
#include <string>

#include "adbwire/device_state.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_get_state_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto* cmd = app.add_subcommand(
      "get-state", "print the device's state: device, recovery, sideload, bootloader …");
  cmd->callback([&globals, &run] {
    run = [&globals] {
      Device device = connect_device(globals);
      print(get_state(device) + "\n");
      return 0;
    };
  });
}

}  // namespace adbwire::cli
