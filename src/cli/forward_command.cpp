#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/forward.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/forward_registry.hpp"
#include "cli/forward_wait.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

// How long --remove and a rebind wait for the process holding a rule to end.
constexpr std::chrono::seconds kEndWait{10};

struct ForwardArgs {
  std::vector<std::string> specs;  // LOCAL REMOTE
  bool no_rebind = false;
  bool list = false;
  std::string remove;
  bool remove_all = false;
};

}  // namespace

void add_forward_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<ForwardArgs>();
  auto* cmd =
      app.add_subcommand("forward",
                         "forward a local TCP port to a device socket: forward tcp:LOCAL "
                         "tcp:PORT|localabstract:NAME|… (stays in the foreground; Ctrl-C ends it)");
  cmd->add_option("specs", args->specs, "LOCAL (tcp:PORT, tcp:0 picks one) and REMOTE")
      ->expected(0, 2);
  cmd->add_flag("--no-rebind", args->no_rebind, "fail if LOCAL is already forwarded");
  cmd->add_flag("--list", args->list,
                "list the rules running `adbwire forward` processes hold (every device's)");
  cmd->add_option("--remove", args->remove,
                  "remove the rule for LOCAL (ends the process that holds it)");
  cmd->add_flag("--remove-all", args->remove_all,
                "remove every rule (ends every `adbwire forward` process)");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      // No server holds the rules: each `adbwire forward` process holds one (forward_registry.hpp).
      if (args->list) {
        for (const RegisteredForward& rule : registered_forwards()) {
          print(rule.serial + " " + rule.local + " " + rule.remote + "\n");
        }
        return 0;
      }
      if (args->remove_all || !args->remove.empty()) {
        if (remove_registered_forwards(args->remove, kEndWait) == 0 && !args->remove.empty()) {
          throw Error(errc::not_found,
                      "listener '" + args->remove +
                          "' not found (`adbwire forward --list` shows the rules held)");
        }
        return 0;
      }
      if (args->specs.size() != 2)
        throw Error(errc::invalid_argument,
                    "forward needs LOCAL and REMOTE: forward tcp:8080 tcp:8080");
      block_stop_signals();
      Device device = connect_device(globals);
      Forwarder forwarder(device);
      // As adb rebinds a rule, end the process holding this port unless told not to.
      if (!args->no_rebind && !args->specs[0].empty())
        remove_registered_forwards(args->specs[0], kEndWait);
      const std::string local = forwarder.forward(args->specs[0], args->specs[1], args->no_rebind);
      const ForwardRegistration registration(device.serial(), local, args->specs[1]);
      print(local + " -> " + args->specs[1] + " (Ctrl-C to stop)\n");
      wait_for_stop_signal();
      forwarder.remove_all();  // the port is free before the registration goes
      return 0;
    };
  });
}

}  // namespace adbwire::cli
