// The shell stream under Device::shell, ShellStream and exec's fallback: opening
// "shell,v2,…:" or "shell:", and reading its output until the end. Internal.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "adbwire/device.hpp"
#include "adbwire/shell_options.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire::detail {

struct ShellChannel {
  std::unique_ptr<StreamBackend> stream;
  bool v2 = false;
  std::string command;  // for messages
};

// "shell,v2,{pty|raw}[,TERM=…]:COMMAND" or "shell:COMMAND", as adb builds it.
std::string shell_service(const ShellOptions& options, bool v2);

// Opens the shell: v2 when options.shell_protocol and both sides offer shell_v2. Returns a
// channel without a stream, failure set, on error (Device::open's codes).
ShellChannel open_shell(StreamOpener& opener, const ShellOptions& options, Deadline deadline,
                        Failure& failure);

// Reads until the stream ends; returns the exit status (v2) or -1 (v1, or on error with
// failure set). A handler that throws propagates; the caller closes the stream. A handler that
// sets `failure` (a bound it keeps) ends the reading there, with -1.
int read_shell_output(ShellChannel& channel, const OutputHandler& on_stdout,
                      const OutputHandler& on_stderr, Deadline deadline, Failure& failure);

}  // namespace adbwire::detail
