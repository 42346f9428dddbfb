// Device::exec and Device::shell gathering the whole output, bounded by the kind of output it is
// (adbwire/output_limits.hpp): the library's services and the Page read getprop, pm, dumpsys,
// uiautomator … through these with their own bound; Device's own collecting calls use
// OutputLimits::command. Past the bound: limit_exceeded, the command's stream closed, what was
// gathered so far returned. Internal.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/device.hpp"
#include "base/failure.hpp"
#include "connection/bounded_output.hpp"

namespace adbwire::detail {

// As Device::exec(command, deadline), within device.output_limits().*bound.
std::string exec_output(Device& device, std::string_view command, OutputBound bound,
                        Deadline deadline, Failure& failure);

// As Device::shell(command, deadline), stdout and stderr together within
// device.output_limits().*bound.
ShellResult shell_output(Device& device, std::string_view command, OutputBound bound,
                         Deadline deadline, Failure& failure);

// As the streaming Device::exec, with the call's failure shared with on_chunk: a handler that
// sets it (a bound it keeps) ends the command there and its stream is closed.
void exec_into(Device& device, std::string_view command, const OutputHandler& on_chunk,
               Deadline deadline, Failure& failure);

// "`COMMAND`", escaped and cut to 120 bytes, for messages.
std::string what_ran(std::string_view command);

}  // namespace adbwire::detail
