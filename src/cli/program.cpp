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
#include <vector>

#include "cli/connect.hpp"
#include "cli/front/dispatch.hpp"
#include "cli/terminal_text.hpp"
#include "cli/wait_for.hpp"

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

bool reads_own_words(std::string_view command) {
  return command == "shell" || command == "exec-out" || command == "logcat";
}

int parse_and_run(CLI::App& app, GlobalOptions& globals, const Run& run, int argc, char** argv) {
  std::vector<char*> words(argv, argv + argc);
  static char version_word[] = "version";
  if (words.size() == 2 && std::string_view(words[1]) == "--version") words[1] = version_word;
  const auto scan = [&words] {
    return front::scan_command_line(
        std::span<const char* const>(words.data() + 1, words.size() - 1));
  };
  front::CommandLine line = scan();
  // As adb: `wait-for-device` alone waits; before a command, waits and then runs it.
  std::string wait_word;
  if (line.command.starts_with("wait-for-")) {
    wait_word = line.command;
    if (const std::string problem = wait_for_problem(wait_word); !problem.empty()) {
      print_error("adbwire: " + problem);
      return 1;
    }
    words.erase(words.end() - static_cast<std::ptrdiff_t>(line.after.size()) - 1);
    line = scan();
    if (line.command.empty()) app.require_subcommand(0, 1);
  }
  const auto names_command = [&line](CLI::App* sub) {
    return sub->check_name(std::string(line.command));
  };
  if (!line.command.empty() && app.get_subcommands(names_command).empty()) {
    print_error("adbwire: unknown command " + std::string(line.command) +
                "\nadbwire: `adbwire --help` lists the commands");
    return 1;
  }
  int parsed = static_cast<int>(words.size());
  if (reads_own_words(line.command)) {
    globals.command_words.assign(line.after.begin(), line.after.end());
    parsed -= static_cast<int>(line.after.size());
  }
  try {
    app.parse(parsed, words.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help) and gives each kind of usage error its own status
    // (104, 105, 109, …); as adb, every usage error exits 1, so scripts test one status.
    return app.exit(e) == 0 ? 0 : 1;
  }
  // As adb, a transport id that is not a number is a usage error, said before anything runs.
  if (!globals.transport_id.empty() &&
      globals.transport_id.find_first_not_of("0123456789") != std::string::npos) {
    print_error("adbwire: invalid transport id");
    return 1;
  }
  // As adb: a closed pipe is an EPIPE to handle (quietly, see OutputClosed), not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    if (!wait_word.empty()) wait_for(globals, wait_word);
    return run ? run() : 0;
  } catch (const OutputClosed&) {
    return 0;
  } catch (const std::exception& e) {
    print_error("adbwire: error: " + std::string(e.what()));
    return 1;
  }
}

}  // namespace adbwire::cli
