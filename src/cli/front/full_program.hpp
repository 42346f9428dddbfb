// Where the full program (adbwire-full: every subcommand, the connection runtime, the daemon) is
// for the front: beside it in the build tree, in libexec once installed.
#pragma once

#include <filesystem>

namespace adbwire::cli::front {

// The full program for this front: "adbwire-full" in the folder of /proc/self/exe (the build
// tree), else ADBWIRE_FULL_FROM_BIN relative to that folder (installed:
// ../libexec/adbwire/adbwire-full). Throws Error(not_found) naming both places.
std::filesystem::path full_program_path();

// Replaces this process with the full program, argv unchanged (argv[0] too, so messages name
// the program as the user typed it). Returns only on failure: the exit code after saying why.
int exec_full_program(char** argv);

}  // namespace adbwire::cli::front
