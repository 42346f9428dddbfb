// adb's wait-for-[TRANSPORT-]STATE word before a command (`adbwire wait-for-device shell …`):
// read as adb reads it (client/commandline.cpp wait_for_device), then waited for.
#pragma once

#include <string>
#include <string_view>

#include "cli/command.hpp"

namespace adbwire::cli {

// "" when word is a well-formed wait-for-[usb-|local-|any-]STATE (STATE: device, recovery,
// rescue, sideload, bootloader, any, disconnect), else adb's complaint about it.
std::string wait_for_problem(std::string_view word);

// Waits, as adb does with no deadline, until the device of globals (its -s, -d, -e, -t and
// $ANDROID_SERIAL; "usb-" and "local-" in word narrow it as -d and -e do) answers in word's
// state, or, for "disconnect", no longer answers. Errors other than "not reachable yet"
// (a malformed target, say) are thrown.
void wait_for(GlobalOptions globals, std::string_view word);

}  // namespace adbwire::cli
