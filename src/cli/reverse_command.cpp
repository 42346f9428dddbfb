#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/forward.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/forward_wait.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct ReverseArgs {
  std::vector<std::string> specs;  // DEVICE_SIDE HOST_SIDE
  bool no_rebind = false;
  bool list = false;
  std::string remove;
  bool remove_all = false;
};

}  // namespace

void add_reverse_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<ReverseArgs>();
  auto* cmd = app.add_subcommand(
      "reverse",
      "let the device connect to this host: reverse tcp:DEVICE_PORT tcp:HOST_PORT "
      "(stays in the foreground to carry the connections; Ctrl-C ends it)");
  cmd->add_option("specs", args->specs,
                  "the device side (tcp:PORT, localabstract:NAME) and the host side (tcp:PORT)")
      ->expected(0, 2);
  cmd->add_flag("--no-rebind", args->no_rebind, "fail if the device side is already reversed");
  cmd->add_flag("--list", args->list, "list the device's reverse rules");
  cmd->add_option("--remove", args->remove, "remove the rule for a device side");
  cmd->add_flag("--remove-all", args->remove_all, "remove every reverse rule");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      block_stop_signals();
      // Device-initiated streams come back over the connection that asked for them: a reverse
      // rule needs a connection of this process's own, not the daemon's.
      Device device = connect_directly(globals);
      Forwarder forwarder(device);
      if (args->list) {
        for (const ForwardRule& rule : forwarder.reverse_list()) {
          print(device.serial() + " " + rule.local + " " + rule.remote + "\n");
        }
        return 0;
      }
      if (!args->remove.empty()) {
        forwarder.reverse_remove(args->remove);
        return 0;
      }
      if (args->remove_all) {
        forwarder.reverse_remove_all();
        return 0;
      }
      if (args->specs.size() != 2) {
        throw Error(errc::invalid_argument,
                    "reverse needs the device side and the host side: reverse tcp:8081 tcp:8081");
      }
      const std::string port = forwarder.reverse(args->specs[0], args->specs[1], args->no_rebind);
      if (!port.empty()) print(port + "\n");
      print(args->specs[0] + " (device) -> " + args->specs[1] + " (Ctrl-C to stop)\n");
      wait_for_stop_signal();
      forwarder.reverse_remove(args->specs[0]);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
