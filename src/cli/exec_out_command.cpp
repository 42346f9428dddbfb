#include <memory>
#include <string>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"

namespace adbwire::cli {
namespace {

struct ExecOutArgs {
  TimeoutOption timeout{.fallback = kNoDeadline};
};

}  // namespace

void add_exec_out_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<ExecOutArgs>();
  auto* cmd = app.add_subcommand("exec-out",
                                 "run COMMAND… with no PTY and copy its raw output to stdout "
                                 "(binary safe: exec-out screencap -p > screen.png)");
  cmd->prefix_command();
  add_timeout_option(*cmd, args->timeout);
  cmd->callback([cmd, args, &globals, &run] {
    const std::string command = join_command(cmd->remaining());
    run = [command, args, &globals] {
      if (command.empty())
        throw Error(errc::invalid_argument, "exec-out needs a command: adbwire exec-out COMMAND…");
      Device device = connect_device(globals);
      device.exec(command, write_to(stdout), args->timeout.deadline());
      return 0;
    };
  });
}

}  // namespace adbwire::cli
