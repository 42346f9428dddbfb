// What every device subcommand shares: connecting to -s TARGET, writing output as it comes.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// Connects to globals.serial ($ANDROID_SERIAL when empty) with adb's key locations.
// Throws adbwire::Error as Device::connect does.
Device connect_device(const GlobalOptions& globals);

// COMMAND… words joined by single spaces, as adb joins `adb shell` arguments.
std::string join_command(const std::vector<std::string>& words);

// A deadline `seconds` from now; 0 or less means none (a CLI command runs until it ends).
Deadline deadline_in_seconds(double seconds);

// An OutputHandler that writes each piece to `file` and flushes, so output appears as the
// device produces it. Throws Error(io_error) when the write fails (a closed pipe, a full disk).
OutputHandler write_to(std::FILE* file);

}  // namespace adbwire::cli
