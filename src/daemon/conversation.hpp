// One client connection to the daemon: its smart-socket requests, answered as AOSP's adb server
// answers them (host services, a transport switch, then a device stream), and adbwire's own
// requests (daemon_protocol.hpp) from this user's clients.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "daemon/registry.hpp"
#include "daemon/sessions.hpp"

namespace adbwire::daemon {

// What every conversation shares.
struct DaemonState {
  Registry& registry;
  Sessions& sessions;
  std::function<void()> stop;  // host:kill
  // Set once the daemon ends: a client that waits (track-devices, wait-for) is let go.
  const std::atomic<bool>& stopping;
  // How long a device stream's open may take (DaemonOptions::open_wait).
  std::chrono::milliseconds open_wait{30000};
  // What host:adbwire-status reports: device bytes relayed to clients' sockets, and files (and
  // their bytes) received straight into clients' descriptors (kPullIntoRequest).
  std::atomic<std::uint64_t> relayed_bytes{0};
  std::atomic<std::uint64_t> pulled_into_files{0};
  std::atomic<std::uint64_t> pulled_into_bytes{0};
  // Files (and their bytes) sent straight from clients' descriptors (kPushFromRequest).
  std::atomic<std::uint64_t> pushed_from_files{0};
  std::atomic<std::uint64_t> pushed_from_bytes{0};
};

// Serves the requests on fd until the client closes it, a one-shot reply was sent or a stream
// ended; fd stays open (the caller closes it). local: a Unix socket client of this user, who may
// also make adbwire's requests (which write files and start sessions as this user); a TCP client
// gets adb's services only.
void converse(DaemonState& state, int fd, bool local);

}  // namespace adbwire::daemon
