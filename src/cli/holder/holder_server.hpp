// The connection holder itself: a process of the full program that holds one connected Device for
// one target and relays streams to one-shot CLI calls over its Unix socket (holder_protocol.hpp;
// src/cli/README.md tells the whole design).
#pragma once

#include <chrono>
#include <string>

#include "adbwire/connect_options.hpp"

namespace adbwire::cli::holder {

struct HolderOptions {
  std::string target;      // canonical, as the client gave it (-s)
  ConnectOptions connect;  // from the global flags (--auth-timeout); keys from the environment
  std::chrono::seconds idle{1800};  // ends after this long without a client
  // How long an open waits for the device; two that pass in a row make it connect again.
  std::chrono::seconds open_wait{30};
  int ready_fd = -1;  // gets OKAY once listening, or FAIL with the connect error; then closed
};

// Connects, listens at the target's holder socket (holder_socket.hpp), reports on ready_fd, then
// serves clients until idle, or until its socket is gone or replaced (another holder took the
// path, or the runtime folder was removed). A connection that dropped is made again on the next
// open, which then carries a NOTE saying so. Returns the process exit code: 0 after serving, 1
// when it never got ready. Runs in the holder process only (it owns the process's descriptors).
int serve_holder(const HolderOptions& options);

}  // namespace adbwire::cli::holder
