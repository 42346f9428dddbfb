// The front's connector (GlobalOptions::connector): the device of -s through its connection
// holder, started on first use. The front runs it only for targets the holder serves
// (dispatch.hpp decides).
#pragma once

#include "adbwire/device.hpp"
#include "cli/command.hpp"

namespace adbwire::cli::front {

// Through the holder of globals.serial ($ANDROID_SERIAL when empty), started with the full
// program, --auth-timeout and $ADBWIRE_HOLDER_IDLE (seconds without a client before it ends;
// default 1800, as a session). What the holder says (it reconnected) goes to stderr.
// Throws adbwire::Error: invalid_argument (a bad -P or $ADBWIRE_HOLDER_IDLE), and those of
// holder::connect_through_holder.
Device connect_through_holder(const GlobalOptions& globals);

}  // namespace adbwire::cli::front
