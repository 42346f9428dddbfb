// Every subcommand of the adbwire CLI, one file each in src/cli/.
#pragma once

#include "cli/command.hpp"

namespace adbwire::cli {

void add_version_command(CLI::App& app, const GlobalOptions& globals, Run& run);

// The table main() registers, in the order `adbwire --help` lists them.
inline constexpr AddCommand kCommands[] = {
    add_version_command,
};

}  // namespace adbwire::cli
