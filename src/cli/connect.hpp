// What every device subcommand shares: connecting to -s TARGET, writing output as it comes.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/server_address.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// The adb server named by -H/-P (empty parts: environment, then 127.0.0.1:5037).
// Throws Error(invalid_argument) for a -P outside 1..65535.
ServerAddress server_address(const GlobalOptions& globals);

// The output bounds --max-output KIND=BYTES asks for (the defaults for the kinds it does not
// name). Throws Error(invalid_argument) naming the kinds for a malformed one.
OutputLimits output_limits(const GlobalOptions& globals);

// The connect options the global flags ask for: the adb server of -H/-P, --record,
// --auth-timeout and --max-output. Throws Error(invalid_argument) for a bad -P or --max-output.
ConnectOptions connect_options(const GlobalOptions& globals);

// The device of -s ($ANDROID_SERIAL when empty), reached the way this program does
// (globals.connector). Throws adbwire::Error as Device::connect does.
Device connect_device(const GlobalOptions& globals);

// The device -s names, else $ANDROID_SERIAL's: the front serves a pull or a push only on a named
// device (front::front_command), so the name is the choice.
std::string named_target(const GlobalOptions& globals);

// The full program's connector: through the daemon when daemon_serves() says so, else
// Device::connect with adb's key locations (server: targets and bare serials through the server
// of -H/-P). Defined in connect_direct.cpp, which only the full program links (it brings the
// whole connection runtime).
Device connect_from_full_program(const GlobalOptions& globals);
// Whether connect_from_full_program goes through the daemon for globals (daemon_serves() on
// globals and the environment; defined in daemon_connect.cpp, for both programs).
bool full_program_uses_daemon(const GlobalOptions& globals);

// Device::connect on -s with the global flags: a connection of this process's own.
Device connect_directly(const GlobalOptions& globals);

// COMMAND… words joined by single spaces, as adb joins `adb shell` arguments.
std::string join_command(const std::vector<std::string>& words);

// A deadline `seconds` from now; 0 or less means none (a CLI command runs until it ends).
Deadline deadline_in_seconds(double seconds);

// The -t/--timeout option of a command that reaches a device, read by deadline(): the deadline
// `seconds` from now, or, without the option (0 or less), fallback: kDefaultDeadline (the command
// timeout) or kNoDeadline (wait until the command ends, as adb shell does).
struct TimeoutOption {
  double seconds = 0;
  Deadline fallback = kDefaultDeadline;
  Deadline deadline() const { return seconds > 0 ? deadline_in_seconds(seconds) : fallback; }
};
// Registers timeout on cmd as names ("--timeout" alone where -t means something else); help: the
// option's help when not the one its fallback implies.
void add_timeout_option(CLI::App& cmd, TimeoutOption& timeout,
                        const std::string& names = "-t,--timeout", std::string help = {});

// Thrown by write_to when the reader of our output went away (EPIPE: `| head` has what it
// wanted). main() ends quietly with status 0 then, as adb does; SIGPIPE is ignored for it.
struct OutputClosed {};

// An OutputHandler that writes each piece to `file` and flushes, so output appears as the
// device produces it. Throws OutputClosed on a closed pipe, Error(io_error) for any other
// write failure (a full disk), naming it.
OutputHandler write_to(std::FILE* file);

}  // namespace adbwire::cli
