#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/install.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct UninstallArgs {
  std::string package;
  bool keep_data = false;
  TimeoutOption timeout;
};

}  // namespace

void add_uninstall_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<UninstallArgs>();
  auto* cmd = app.add_subcommand("uninstall", "remove an app: uninstall [-k] PACKAGE");
  cmd->add_option("package", args->package, "the package name")->required();
  cmd->add_flag("-k", args->keep_data, "keep the app's data and cache folders");
  add_timeout_option(*cmd, args->timeout);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      Device device = connect_device(globals);
      const Deadline deadline = args->timeout.deadline();
      print(uninstall(device, args->package, args->keep_data, deadline));
      return 0;
    };
  });
}

}  // namespace adbwire::cli
