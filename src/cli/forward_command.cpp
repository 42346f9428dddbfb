#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/forward.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/forward_wait.hpp"

namespace adbwire::cli {
namespace {

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
  auto* cmd = app.add_subcommand("forward", "forward a local TCP port to a device socket: forward tcp:LOCAL "
                                            "tcp:PORT|localabstract:NAME|… (stays in the foreground; Ctrl-C ends it)");
  cmd->add_option("specs", args->specs, "LOCAL (tcp:PORT, tcp:0 picks one) and REMOTE")->expected(0, 2);
  cmd->add_flag("--no-rebind", args->no_rebind, "fail if LOCAL is already forwarded");
  cmd->add_flag("--list", args->list, "list rules (those of this process: none)");
  cmd->add_option("--remove", args->remove, "remove the rule for LOCAL");
  cmd->add_flag("--remove-all", args->remove_all, "remove every rule");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      if (args->list || args->remove_all || !args->remove.empty()) {
        // adbwire holds forward rules in the process that made them, not in a server.
        throw Error(errc::not_supported, "adbwire's forward rules live in the `adbwire forward` process that made "
                                         "them: stop that process (Ctrl-C) to remove them");
      }
      if (args->specs.size() != 2) throw Error(errc::invalid_argument, "forward needs LOCAL and REMOTE: forward tcp:8080 tcp:8080");
      block_stop_signals();
      Device device = connect_device(globals);
      Forwarder forwarder(device);
      const std::string local = forwarder.forward(args->specs[0], args->specs[1], args->no_rebind);
      std::printf("%s -> %s (Ctrl-C to stop)\n", local.c_str(), args->specs[1].c_str());
      std::fflush(stdout);
      wait_for_stop_signal();
      return 0;
    };
  });
}

}  // namespace adbwire::cli
