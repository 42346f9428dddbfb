// How a shell is asked for: its command, a PTY, TERM, and whether shell protocol v2 may carry it.
// ShellStream takes it (Device::shell runs its command with the defaults); the connection layer
// builds the service name from it.
#pragma once

#include <string>

namespace adbwire {

struct ShellOptions {
  // sh -c COMMAND on the device; empty: an interactive shell (sh reading stdin, with a prompt
  // when it has a PTY).
  std::string command;
  // Ask for a PTY on the device (line editing, job control, Ctrl-C as a byte the PTY turns into
  // SIGINT; stdout and stderr merged). Only shell protocol v2 can ask: without it the device
  // decides (a PTY for an empty command; Android before 7.0 gives every command a PTY).
  bool pty = false;
  // TERM for the device's PTY (adb passes its own $TERM); empty: the device's default ("dumb").
  // Sent only with shell protocol v2.
  std::string term;
  // Use shell protocol v2 when both sides offer shell_v2 (stderr apart, the exit status,
  // end of stdin, window sizes). false forces protocol v1 ("shell:"), as `adb shell -x`.
  bool shell_protocol = true;
};

}  // namespace adbwire
