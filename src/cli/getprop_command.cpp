#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/device_state.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct GetpropArgs {
  std::string name;
  TimeoutOption timeout;
};

}  // namespace

void add_getprop_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<GetpropArgs>();
  auto* cmd = app.add_subcommand("getprop", "print one system property, or all as [key]: [value]");
  cmd->add_option("name", args->name, "the property (ro.build.version.sdk …); none: all");
  add_timeout_option(*cmd, args->timeout);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      Device device = connect_device(globals);
      const Deadline deadline = args->timeout.deadline();
      if (!args->name.empty()) {
        print(getprop(device, args->name, deadline) + "\n");
        return 0;
      }
      std::string text;
      for (const auto& [key, value] : getprops(device, deadline))
        text += "[" + key + "]: [" + value + "]\n";
      print(text);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
