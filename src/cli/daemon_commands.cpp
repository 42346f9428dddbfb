// adbwire start-server and kill-server: this user's daemon started (when none answers), and every
// adbwire background process of the user ended, as adb's own commands do for its server.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/forward_registry.hpp"
#include "cli/runtime_folder.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/client.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;

// For an `adbwire forward` process to close its listener after SIGTERM.
constexpr std::chrono::seconds kForwardEndWait{5};

}  // namespace

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
          // adb's two lines (stderr), which scripts wait for; nothing when one already ran.
          if (started) {
            const daemon::DaemonPaths paths =
                daemon::daemon_paths(daemon::daemon_identity(start.program), failure);
            print_error("* daemon not running; starting now at unix:" + paths.socket.string());
            print_error("* daemon started successfully");
          }
          return 0;
        };
      });
}

void add_kill_server_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  app.add_subcommand("kill-server",
                     "end this user's adbwire background processes: the daemon (every device "
                     "connection and session it holds goes with it), those of other adbwire "
                     "installs in the same runtime folder, and the `adbwire forward` processes")
      ->callback([&globals, &run] {
        run = [&globals] {
          // This program's first: a path planted there is refused with the ways out.
          daemon::stop_daemon(globals.full_program);
          int status = 0;
          std::error_code error;
          for (const auto& entry : fs::directory_iterator(private_runtime_folder(), error)) {
            const std::string name = entry.path().filename().string();
            if (!name.starts_with("server-") || !name.ends_with(".sock")) continue;
            try {
              daemon::stop_daemon_at(entry.path());
            } catch (const Error& e) {
              print_error("adbwire: error: " + std::string(e.what()));
              status = 1;
            }
          }
          remove_registered_forwards("", kForwardEndWait);
          return status;
        };
      });
}

}  // namespace adbwire::cli
