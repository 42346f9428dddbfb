// What both programs' main() share: adbwire (the lean front users run) and adbwire-full (every
// subcommand; the front hands it what it does not serve). src/cli/README.md tells the split.
#pragma once

#include <string_view>
#include <variant>
#include <vector>

#include "cli/command.hpp"

namespace adbwire::cli {

inline constexpr const char* kProgramDescription =
    "adbwire: control Android devices over the ADB wire protocol, no adb binary";

// One global option: its names as CLI11 takes them ("-s", "--no-daemon,--no-holder"), its help,
// and the member of GlobalOptions it fills. A bool member makes a flag; any other takes a value
// (a list member one value each time it is given, and may be repeated).
struct GlobalOption {
  std::string_view names;
  std::string_view help;
  std::variant<std::string GlobalOptions::*, int GlobalOptions::*, double GlobalOptions::*,
               bool GlobalOptions::*, std::vector<std::string> GlobalOptions::*>
      member;
  bool non_negative = false;  // a number of seconds: refused below zero

  bool takes_value() const noexcept {
    return !std::holds_alternative<bool GlobalOptions::*>(member);
  }
};

// Every global option, in the order --help lists them: add_global_options registers them, and the
// front's dispatch (front/dispatch.hpp) reads argv by the same list, skipping their values to find
// the command word.
inline constexpr GlobalOption kGlobalOptions[] = {
    {"-s",
     "target: tcp:HOST[:PORT], usb:[SERIAL], server:[HOST:PORT/]SERIAL (default $ANDROID_SERIAL)",
     &GlobalOptions::serial},
    {"-d", "use the only USB device (like adb -d)", &GlobalOptions::usb_only},
    {"-e", "use the only TCP device or emulator (like adb -e)", &GlobalOptions::tcp_only},
    {"-t", "use the device of this transport id (devices -l shows it; like adb -t)",
     &GlobalOptions::transport_id},
    {"-H", "adb server host (like adb -H)", &GlobalOptions::host},
    {"-P", "adb server port (like adb -P)", &GlobalOptions::port},
    {"--record",
     "record every byte of the connection (or, for vdevice, of every host connection) as pcapng",
     &GlobalOptions::record},
    {"--auth-timeout",
     "seconds a person has to accept this computer's key on the device (default 60)",
     &GlobalOptions::auth_timeout, true},
    {"--session",
     "the session (adbwire open) that verbs such as tap and snapshot run in (default: the only "
     "one, or the unnamed one)",
     &GlobalOptions::session},
    {"--max-output",
     "KIND=BYTES (K, M, G suffixes): how much of a device's output a command may hold, per kind: "
     "command, ui_dump, properties, packages, dumpsys, logcat, screenshot (defaults: 16M, 32M, "
     "4M, 8M, 32M, 64M, 128M); repeat for several",
     &GlobalOptions::max_output},
    {"--no-daemon,--no-holder",
     "connect directly, not through this user's adbwire daemon (also ADBWIRE_NO_DAEMON=1; "
     "--no-holder is its old name)",
     &GlobalOptions::no_daemon},
};

// A closed stdin/stdout/stderr would be handed to the next file or socket opened, and `shell`
// would then read its own device socket as stdin: keeps 0, 1 and 2 taken (/dev/null).
void keep_standard_descriptors();

// Registers kGlobalOptions on app, each filling its member of globals.
void add_global_options(CLI::App& app, GlobalOptions& globals);

// Whether command reads the words after it itself, as adb does (shell, exec-out): they go to
// GlobalOptions::command_words, not to CLI11.
bool reads_own_words(std::string_view command);

// Parses argv into app (whose subcommand callbacks store the work into run) and runs it: the
// exit code; a parse error as CLI11 prints it; a command app does not have "adbwire: unknown
// command X" (as adb) and where to look; an output closed under us quietly 0 (as adb); any other
// exception "adbwire: error: …" and 1.
int parse_and_run(CLI::App& app, GlobalOptions& globals, const Run& run, int argc, char** argv);

}  // namespace adbwire::cli
