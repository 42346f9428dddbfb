#include <memory>
#include <string>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"

namespace adbwire::cli {
namespace {

struct ShellArgs {
  double timeout = 0;
};

}  // namespace

void add_shell_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<ShellArgs>();
  auto* cmd = app.add_subcommand(
      "shell",
      "run COMMAND… on the device; its stdout/stderr stream here and its exit code is ours");
  cmd->prefix_command();
  cmd->add_option("-t,--timeout", args->timeout, "give up after this many seconds (default: wait)");
  cmd->callback([cmd, args, &globals, &run] {
    const std::string command = join_command(cmd->remaining());
    run = [command, args, &globals] {
      if (command.empty()) {
        throw Error(errc::not_supported,
                    "an interactive shell is not supported yet; pass a command: "
                    "adbwire shell COMMAND…");
      }
      Device device = connect_device(globals);
      const int exit_code = device.shell(command, write_to(stdout), write_to(stderr),
                                         deadline_in_seconds(args->timeout));
      // Without shell_v2 the device reports no status; adb exits 0 then too.
      return exit_code < 0 ? 0 : exit_code;
    };
  });
}

}  // namespace adbwire::cli
