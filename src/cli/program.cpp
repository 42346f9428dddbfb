#include "cli/program.hpp"

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <type_traits>
#include <variant>

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
  for (const GlobalOption& global : kGlobalOptions) {
    const std::string names(global.names);
    const std::string help(global.help);
    std::visit(
        [&](auto member) {
          auto& value = globals.*member;
          using Value = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<Value, bool>) {
            app.add_flag(names, value, help);
          } else if constexpr (std::is_same_v<Value, std::vector<std::string>>) {
            app.add_option(names, value, help)->expected(1)->allow_extra_args(false);
          } else {
            CLI::Option* option = app.add_option(names, value, help);
            if (global.non_negative) option->check(CLI::NonNegativeNumber);
          }
        },
        global.member);
  }
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
    print_error("adbwire: error: " + std::string(e.what()));
    return 1;
  }
}

}  // namespace adbwire::cli
