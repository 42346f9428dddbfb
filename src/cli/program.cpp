#include "cli/program.hpp"

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void keep_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd) std::_Exit(127);
  }
}

void add_global_options(CLI::App& app, GlobalOptions& globals) {
  app.add_option(
      "-s", globals.serial,
      "target: tcp:HOST[:PORT], usb:[SERIAL], server:[HOST:PORT/]SERIAL (default $ANDROID_SERIAL)");
  app.add_option("-H", globals.host, "adb server host (like adb -H)");
  app.add_option("-P", globals.port, "adb server port (like adb -P)");
  app.add_option(
      "--record", globals.record,
      "record every byte of the connection (or, for vdevice, of every host connection) as pcapng");
  app.add_option("--auth-timeout", globals.auth_timeout,
                 "seconds a person has to accept this computer's key on the device (default 60)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--session", globals.session,
                 "the session (adbwire open) that verbs such as tap and snapshot run in "
                 "(default: the only one, or the unnamed one)");
  app.add_flag(std::string(kNoDaemonFlags[0]) + "," + std::string(kNoDaemonFlags[1]),
               globals.no_daemon,
               "connect directly, not through this user's adbwire daemon (also "
               "ADBWIRE_NO_DAEMON=1; --no-holder is its old name)");
}

int parse_and_run(CLI::App& app, const Run& run, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help) and gives each kind of usage error its own status
    // (104, 105, 109, …); as adb, every usage error exits 1, so scripts test one status.
    return app.exit(e) == 0 ? 0 : 1;
  }
  // As adb: a closed pipe is an EPIPE to handle (quietly, see OutputClosed), not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return run ? run() : 0;
  } catch (const OutputClosed&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adbwire: error: %s\n", shown(e.what()).c_str());
    return 1;
  }
}

}  // namespace adbwire::cli
