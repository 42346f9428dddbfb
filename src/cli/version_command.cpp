#include <cstdio>

#include "cli/commands.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_version_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto* cmd = app.add_subcommand("version", "print adbwire's version");
  cmd->callback([&run] {
    run = [] {
      print("adbwire " ADBWIRE_VERSION "\n");
      return 0;
    };
  });
}

}  // namespace adbwire::cli
