// adbwire start-server and kill-server: this user's daemon started (when none answers) and ended,
// as adb's own commands do for its server.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/client.hpp"

namespace adbwire::cli {

void add_start_server_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("start-server",
                     "start this user's adbwire daemon, which holds the device connections "
                     "(commands start it on their own)")
      ->callback([&globals, &run] {
        run = [&globals] {
          const daemon::DaemonStart start = daemon_start(globals);
          detail::Failure failure;
          bool started = false;
          const int fd = daemon::reach_daemon(start.program, &start, failure, &started);
          failure.throw_if_failed();
          ::close(fd);
          if (started) print_error("adbwire: daemon started");
          return 0;
        };
      });
}

void add_kill_server_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("kill-server",
                     "end this user's adbwire daemon: every device connection and session it "
                     "holds goes with it")
      ->callback([&globals, &run] {
        run = [&globals] {
          daemon::stop_daemon(globals.full_program);
          return 0;
        };
      });
}

}  // namespace adbwire::cli
