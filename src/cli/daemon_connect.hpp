// How the CLI reaches devices through the daemon (src/daemon, docs/daemon.md): which calls go
// there, the start it asks for, and the Device it gets back. Both programs build it in.
#pragma once

#include <cstdint>
#include <string_view>

#include "adbwire/device.hpp"
#include "cli/command.hpp"
#include "daemon/client.hpp"

namespace adbwire::cli {

// Whether a device call goes through the daemon: not opted out (--no-daemon, alias --no-holder;
// $ADBWIRE_NO_DAEMON or $ADBWIRE_NO_HOLDER set and not "0"), no --record (a recording is of a
// connection of its own), and a tcp: or usb: target (target: -s, else $ANDROID_SERIAL). A server:
// target (or a bare serial) is held by that adb server; an unparsable one goes to the full
// program, which says what is wrong. Sans-IO: the environment comes in as arguments.
bool daemon_serves(std::string_view target, bool opted_out, bool record,
                   std::string_view env_no_daemon, std::string_view env_no_holder);

// The start the daemon gets when none answers: the full program (globals.full_program) and its
// idle time, $ADBWIRE_DAEMON_IDLE (or $ADBWIRE_HOLDER_IDLE) seconds, else 1800. Throws
// Error(invalid_argument) for an idle time that is not whole seconds 1..604800.
daemon::DaemonStart daemon_start(const GlobalOptions& globals);

// The device of -s ($ANDROID_SERIAL when empty) through the daemon, started on first use; what
// the daemon says (it reconnected) goes to stderr. Throws adbwire::Error as
// daemon::connect_through_daemon does.
Device connect_through_daemon(const GlobalOptions& globals);

// What is left of deadline for a transfer the daemon makes on a client's descriptor
// (daemon::PullInto, daemon::PushFrom): -1 for the default (a bound per stall), else milliseconds,
// at least 0.
std::int64_t milliseconds_left(Deadline deadline);

}  // namespace adbwire::cli
