#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "adbwire/error.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace {

// A closed stdin/stdout/stderr would be handed to the next file or socket opened, and `shell`
// would then read its own device socket as stdin: keep 0, 1 and 2 taken (/dev/null).
void keep_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd) std::_Exit(127);
  }
}

}  // namespace

int main(int argc, char** argv) {
  keep_standard_descriptors();
  using namespace adbwire::cli;
  CLI::App app{"adbwire: control Android devices over the ADB wire protocol, no adb binary"};
  app.require_subcommand(1);
  GlobalOptions globals;
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
  Run run;
  for (AddCommand add : kCommands) add(app, globals, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // As adb: a closed pipe is an EPIPE to handle (quietly, see OutputClosed), not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return run ? run() : 0;
  } catch (const OutputClosed&) {
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adbwire: error: %s\n", adbwire::cli::shown(e.what()).c_str());
    return 1;
  }
}
