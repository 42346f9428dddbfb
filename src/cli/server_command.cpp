// adbwire server: the daemon (src/daemon) in the foreground. Without --listen it is this user's
// daemon on its private Unix socket (what start-server runs in the background, with --ready-fd);
// with --listen HOST:PORT an adb server on TCP that adb's own clients (adb -P, adbkit, ya-webadb's
// server client) drive devices through, with adbwire's transports under it.
#include <cstdio>
#include <memory>
#include <string>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/daemon.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::cli {
namespace {

struct ServerArgs {
  std::string listen;
  int idle = 0;
  int open_wait = 30;
  int ready_fd = -1;
};

}  // namespace

void add_server_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<ServerArgs>();
  auto* cmd = app.add_subcommand(
      "server",
      "run the adbwire daemon in the foreground: this user's (the one commands start on their "
      "own), or with --listen an adb server on TCP for adb's own clients");
  cmd->add_option("--listen", args->listen,
                  "serve the adb server protocol on HOST:PORT (127.0.0.1:5038) instead of this "
                  "user's socket; it has no authentication, so any address but loopback lets "
                  "whoever reaches it control every device this server holds");
  cmd->add_option("--idle", args->idle,
                  "end after this many seconds with no client, no session and no device kept "
                  "(default: run until killed)")
      ->check(CLI::Range(0, 7 * 24 * 3600));
  cmd->add_option("--open-wait", args->open_wait,
                  "seconds a stream waits for a device to open it (two waits in a row that pass "
                  "make the daemon connect to the device again)")
      ->check(CLI::Range(1, 7 * 24 * 3600));
  cmd->add_option("--ready-fd", args->ready_fd, "descriptor that gets OKAY or FAIL once listening")
      ->check(CLI::NonNegativeNumber)
      ->group("");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      daemon::DaemonOptions options;
      options.listen = args->listen;
      options.idle = std::chrono::seconds(args->idle);
      if (args->idle > 0) options.device_idle = options.idle;
      options.open_wait = std::chrono::seconds(args->open_wait);
      options.ready_fd = args->ready_fd;
      if (args->listen.empty()) {
        detail::Failure failure;
        const daemon::DaemonPaths paths =
            daemon::daemon_paths(daemon::daemon_identity(globals.full_program), failure);
        failure.throw_if_failed();
        if (args->ready_fd < 0) {
          // In the foreground: refuse to take the path of a daemon that answers there.
          const int running = daemon::connect_daemon(paths.socket, failure);
          failure.throw_if_failed();
          if (running >= 0) {
            ::close(running);
            throw Error(errc::busy, "an adbwire daemon already answers at " +
                                        paths.socket.string() +
                                        "; end it first with `adbwire kill-server`");
          }
        }
        options.socket = paths.socket;
        options.lock = paths.lock;
      }
      options.log = [](std::string_view line) {
        print_error("adbwire server: " + std::string(line));
      };
      return daemon::serve_daemon(options);
    };
  });
}

}  // namespace adbwire::cli
