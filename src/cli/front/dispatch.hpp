// The front program's dispatch, done on argv before any parser is built: which subcommand the
// call names, and whether the front serves it (then only that subcommand's parser is made) or
// hands the call, argv unchanged, to the full program. Sans-IO: the environment comes in as
// arguments.
#pragma once

#include <span>
#include <string_view>

#include "cli/command.hpp"

namespace adbwire::cli::front {

// What the words before the subcommand say.
struct CommandLine {
  std::string_view command;            // the first word that is not a global option or its value
  std::string_view serial;             // -s's value; empty when not given
  std::span<const char* const> after;  // the words after the command
  bool record = false;                 // --record given
  bool no_daemon = false;              // --no-daemon (or --no-holder) given
  // Only what the front understands: no help request anywhere, no unknown or repeated global
  // option, no "--". Anything else goes to the full program, which handles every case.
  bool plain = true;
};

// args: argv without argv[0]. Reads the options of kGlobalOptions (program.hpp), the list
// add_global_options registers: those that take a value take the next word ("-s X") or a joined
// one ("-sX", "--record=X"); the others are flags.
CommandLine scan_command_line(std::span<const char* const> args);

// A subcommand the front serves. The session verbs (tap, type, press, … from the verb table)
// are served here too: they only talk to the session daemon's local socket.
struct FrontCommand {
  std::string_view name;
  AddCommand add;  // nullptr for the session verbs: add_verb_command(…, line.command)
  // Reaches a device: served here only when the daemon carries the call (daemon_serves: a tcp: or
  // usb: target, no --record, no opt-out); otherwise the full program connects directly.
  bool reaches_device;
};

// The environment's say in the choice.
struct Environment {
  std::string_view android_serial = {};  // default_serial(), for a call without -s
  std::string_view no_daemon = {};       // $ADBWIRE_NO_DAEMON: set and not "0" opts out
  std::string_view no_holder = {};       // $ADBWIRE_NO_HOLDER: its old name
};

// The front's entry for line, or nullptr when the full program should run the call.
const FrontCommand* front_command(const CommandLine& line, const Environment& environment);

}  // namespace adbwire::cli::front
