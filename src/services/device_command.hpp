// One shell command of a device service (am, pm, settings, input, wm …), judged the way those
// tools report failure, and the quoting of their output in error messages. Internal.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "base/failure.hpp"
#include "base/shell_quote.hpp"
#include "connection/bounded_output.hpp"

namespace adbwire::detail {

// What makes a command failed besides the Device errors.
enum class OutputCheck {
  // A non-zero exit status. For reads, whose output is data (a setting may contain "Error:").
  exit_status,
  // Also "Exception" or "Error:" in its output: `am`, `input`, `cmd` and `settings put` report
  // most failures as text and exit 0.
  exit_status_and_text,
};

// Runs command with Device::shell and returns its stdout, its output held within
// device.output_limits().*bound (limit_exceeded past it). A failed command is command_failed
// naming the command (cut at 120 bytes) and quoting the end of its output; the Device errors
// otherwise. Returns "" on failure.
std::string run_command(Device& device, std::string_view command, Deadline deadline,
                        OutputCheck check, Failure& failure,
                        OutputBound bound = &OutputLimits::command);

// text without the spaces, '\r' and '\n' around it.
std::string trim(std::string_view text);

// The last 300 bytes of output, trimmed and in double quotes, for an error message; "no output"
// when nothing is left.
std::string quote_output(std::string_view output);

}  // namespace adbwire::detail
