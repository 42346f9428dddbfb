// adbwire's daemon: an adb server (the smart-socket protocol of AOSP's, on a Unix socket and/or
// TCP) that holds one connection per device over adbwire's transports (TCP, TLS, USB) and serves
// adbwire's own requests beside adb's (daemon_protocol.hpp): streams for the CLI's one-shot
// commands and the CLI sessions. docs/daemon.md tells the whole design.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace adbwire::daemon {

struct DaemonOptions {
  // The per-user socket (daemon_paths()) and its lock; empty: no Unix socket. Only this user's
  // processes are served there (SO_PEERCRED).
  std::filesystem::path socket;
  std::filesystem::path lock;
  // "HOST:PORT" to serve on TCP too (`adbwire server --listen`): the adb server protocol has no
  // authentication, so whoever reaches the port controls every device held. Empty: none.
  std::string listen;
  // End after this long with no client, no session and no device kept (zero: never; a foreground
  // server ends on host:kill, SIGINT or SIGTERM).
  std::chrono::seconds idle{0};
  // How long a device nobody kept (host:connect) and nobody uses stays connected; one whose
  // connection dropped goes after dropped_idle.
  std::chrono::seconds device_idle{1800};
  std::chrono::seconds dropped_idle{60};
  // How long a client's stream waits for the device to open it; two waits in a row that pass
  // make the daemon connect to the device again (HeldDevice::open).
  std::chrono::seconds open_wait{30};
  // Gets the daemon's start verdict, OKAY or FAIL (daemon_protocol.hpp frames), then is closed;
  // -1: none.
  int ready_fd = -1;
  // Where progress goes (listening on, a warning); empty: nowhere.
  std::function<void(std::string_view)> log;
};

// Listens, reports on ready_fd, then serves until host:kill, SIGINT/SIGTERM (a foreground server),
// idle, or until its Unix socket path no longer names its socket (removed, or taken by a newer
// daemon; checked every few seconds). Returns the exit code: 0 after serving, 1 when it never got
// ready (the reason went to ready_fd and log).
int serve_daemon(const DaemonOptions& options);

}  // namespace adbwire::daemon
