#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "adbwire/device_state.hpp"
#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct RebootArgs {
  std::string target;
  TimeoutOption timeout;
};

const std::map<std::string, RebootTarget> kTargets = {
    {"", RebootTarget::system},
    {"bootloader", RebootTarget::bootloader},
    {"recovery", RebootTarget::recovery},
    {"sideload", RebootTarget::sideload},
    {"sideload-auto-reboot", RebootTarget::sideload_auto_reboot},
    {"fastboot", RebootTarget::fastboot},
};

}  // namespace

void add_reboot_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<RebootArgs>();
  auto* cmd = app.add_subcommand("reboot",
                                 "reboot the device, or into bootloader, recovery, sideload, "
                                 "sideload-auto-reboot or fastboot");
  cmd->add_option("target", args->target, "where to reboot into (default: the system)");
  add_timeout_option(*cmd, args->timeout);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      const auto target = kTargets.find(args->target);
      if (target == kTargets.end()) {
        throw Error(errc::invalid_argument,
                    "unknown reboot target '" + args->target +
                        "': use bootloader, recovery, sideload, sideload-auto-reboot or fastboot");
      }
      Device device = connect_device(globals);
      const Deadline deadline = args->timeout.deadline();
      print(reboot(device, target->second, deadline));
      return 0;
    };
  });
}

}  // namespace adbwire::cli
