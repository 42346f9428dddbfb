// What both programs' main() share: adbwire (the lean front users run) and adbwire-full (every
// subcommand; the front hands it what it does not serve). src/cli/README.md tells the split.
#pragma once

#include <string_view>

#include "cli/command.hpp"

namespace adbwire::cli {

inline constexpr const char* kProgramDescription =
    "adbwire: control Android devices over the ADB wire protocol, no adb binary";

// The global options that take a value, as add_global_options registers them; the front's
// dispatch (front/dispatch.hpp) skips their values to find the command word.
inline constexpr std::string_view kValuedGlobalOptions[] = {
    "-s", "-H", "-P", "--record", "--auth-timeout", "--session"};
// --no-daemon and its old name, flags.
inline constexpr std::string_view kNoDaemonFlags[] = {"--no-daemon", "--no-holder"};

// A closed stdin/stdout/stderr would be handed to the next file or socket opened, and `shell`
// would then read its own device socket as stdin: keeps 0, 1 and 2 taken (/dev/null).
void keep_standard_descriptors();

// Registers adb's global flags (-s, -H, -P), --record, --auth-timeout, --session and
// --no-daemon on app.
void add_global_options(CLI::App& app, GlobalOptions& globals);

// Parses argv into app (whose subcommand callbacks store the work into run) and runs it: the
// exit code; a parse error as CLI11 prints it; an output closed under us quietly 0 (as adb);
// any other exception "adbwire: error: …" and 1.
int parse_and_run(CLI::App& app, const Run& run, int argc, char** argv);

}  // namespace adbwire::cli
