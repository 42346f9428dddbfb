#include <cstdio>

#include "cli/commands.hpp"

namespace adbwire::cli {

void add_version_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto* cmd = app.add_subcommand("version", "print adbwire's version");
  cmd->callback([&run] {
    run = [] {
      std::printf("adbwire %s\n", ADBWIRE_VERSION);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
