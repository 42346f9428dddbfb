// What `forward` and `reverse` share: their rules live in this process, so after setting
// them up the command stays in the foreground until Ctrl-C (SIGINT) or SIGTERM.
#pragma once

#include <csignal>

namespace adbwire::cli {

// Blocks SIGINT and SIGTERM for this thread and the threads it starts afterwards, so
// wait_for_stop_signal() receives them; call before connecting.
void block_stop_signals();
// Waits for SIGINT or SIGTERM (blocked by block_stop_signals()).
void wait_for_stop_signal();

}  // namespace adbwire::cli
