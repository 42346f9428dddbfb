#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/device_state.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct UnrootArgs {
  double timeout = 0;
};

}  // namespace

void add_unroot_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<UnrootArgs>();
  auto* cmd = app.add_subcommand(
      "unroot", "restart adbd without root permissions (adb unroot); prints the device's answer");
  cmd->add_option("-t,--timeout", args->timeout,
                  "give up after this many seconds (default: the command timeout)");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      Device device = connect_device(globals);
      const Deadline deadline =
          args->timeout > 0 ? deadline_in_seconds(args->timeout) : kDefaultDeadline;
      const std::string answer = unroot(device, deadline);
      print(answer);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
