// Every subcommand of the adbwire CLI, one file each in src/cli/.
#pragma once

#include "cli/command.hpp"

namespace adbwire::cli {

void add_version_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_vdevice_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_snapshot_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_shell_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_exec_out_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_keygen_command(CLI::App& app, const GlobalOptions& globals, Run& run);
void add_capture_command(CLI::App& app, const GlobalOptions& globals, Run& run);

// The table main() registers, in the order `adbwire --help` lists them.
inline constexpr AddCommand kCommands[] = {
    add_version_command,
    add_vdevice_command,
    add_snapshot_command,
    add_shell_command,
    add_exec_out_command,
    add_keygen_command,
    add_capture_command,
};

}  // namespace adbwire::cli
