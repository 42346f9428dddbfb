// adbwire shell [-n] [-t|-tt|-T] [-x] [-e ESCAPE] [COMMAND…]: adb shell, flag for flag
// (client/commandline.cpp adb_shell): stdin forwarded, a PTY and a raw local terminal for an
// interactive shell, window sizes and the ~. escape.
#include <getopt.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/shell_stream.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/shell_input.hpp"
#include "cli/terminal.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct ShellArgs {
  bool no_stdin = false;
  bool v1 = false;
  std::string pty_flags;  // each -t, -T and -x in the order given: their meaning builds up
  char escape = '~';
  std::string command;
};

// adb's PtyAllocationMode, in its order: -t once asks (granted only with a terminal on stdin),
// twice insists.
enum class Pty { automatic, no, yes, definitely };

// The words after `shell` read as adb reads them: getopt(3) with adb's options, stopping at the
// first word that is not one ("+"; `--` ends them too), the rest joined by spaces, unquoted (as
// ssh does: the device's sh splits them again). false when getopt refused a word (it said why,
// as "adbwire shell: invalid option -- 'q'") or -e's value is not one character or "none".
bool read_shell_words(std::vector<std::string> words, ShellArgs& args) {
  std::string name = "adbwire shell";  // getopt(3)'s messages start with argv[0]
  std::vector<char*> argv{name.data()};
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(argv.size()) - 1;
  optind = 0;  // glibc: start a new scan
  opterr = 1;
  for (int option; (option = ::getopt(argc, argv.data(), "+e:ntTx")) != -1;) {
    switch (option) {
      case 'e':
        if (std::string_view(optarg) != "none" && std::string_view(optarg).size() != 1) {
          print_error("adbwire: -e requires a single-character argument or 'none'");
          return false;
        }
        args.escape = std::string_view(optarg) == "none" ? 0 : optarg[0];
        break;
      case 'n':
        args.no_stdin = true;
        break;
      case 'x':
        args.v1 = true;
        args.escape = '~';
        args.pty_flags += 'x';
        break;
      case 't':
      case 'T':
        args.pty_flags += static_cast<char>(option);
        break;
      default:
        return false;
    }
  }
  args.command = join_command(std::vector<std::string>(words.begin() + (optind - 1), words.end()));
  return true;
}

int run_shell(const ShellArgs& args, const GlobalOptions& globals) {
  const std::string& command = args.command;
  const char escape = args.escape;
  Device device = connect_device(globals);
  const bool device_v2 = device.has_feature("shell_v2");
  bool v2 = device_v2 && !args.v1;
  // As adb: -x asks for the old default (a PTY), so -Tx undoes the -T and -xT does not.
  Pty pty = v2 ? Pty::automatic : Pty::definitely;
  for (const char flag : args.pty_flags) {
    if (flag == 'x') pty = Pty::definitely;
    if (flag == 'T') pty = Pty::no;
    if (flag == 't') pty = pty == Pty::yes || pty == Pty::definitely ? Pty::definitely : Pty::yes;
  }

  const bool interactive = command.empty();
  const bool stdin_tty = !args.no_stdin && ::isatty(STDIN_FILENO) == 1;
  bool use_pty = true;
  if (pty == Pty::no) {
    use_pty = false;
  } else if (pty == Pty::automatic) {
    // `adbwire shell < script.sh` and every command with arguments run without a PTY.
    use_pty = stdin_tty && interactive;
  } else if (pty == Pty::yes && !stdin_tty) {
    print_error(
        "Remote PTY will not be allocated because stdin is not a terminal.\n"
        "Use multiple -t options to force remote PTY allocation.");
    use_pty = false;
  }
  if (!v2 && !use_pty) {
    throw Error(errc::not_supported,
                std::string(device_v2 ? "-x" : "the device (it has no shell_v2)") +
                    " only supports allocating a pty: drop -T");
  }

  ShellOptions options;
  options.command = command;
  options.pty = use_pty;
  options.shell_protocol = v2;
  if (const char* term = std::getenv("TERM")) options.term = term;
  // Without the shell protocol the device decides; it gives an interactive shell a PTY.
  const bool remote_pty = v2 ? use_pty : interactive;

  const Deadline deadline = kNoDeadline;  // as adb shell: until the command ends
  ShellStream shell = ShellStream::open(device, options, deadline);
  RawTerminal raw(remote_pty && stdin_tty ? STDIN_FILENO : -1);
  ShellInputOptions input;
  input.fd = args.no_stdin ? -1 : STDIN_FILENO;
  input.window_size = v2 && stdin_tty;
  input.escape = remote_pty ? escape : 0;
  input.deadline = deadline;
  ShellInput pump(shell, input);

  std::error_code error;
  const int exit_code = shell.wait(write_to(stdout), write_to(stderr), deadline, error);
  pump.stop();
  raw.restore();
  if (pump.disconnected()) {
    disconnected_line();
    return 0;
  }
  throw_if_error(error, "the shell on " + device.serial() + " failed: " + error.message());
  // Without shell_v2 the device reports no status; adb exits 0 then too.
  return exit_code < 0 ? 0 : exit_code;
}

}  // namespace

void add_shell_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto* cmd = app.add_subcommand(
      "shell",
      "[-n] [-t|-tt|-T] [-x] [-e ESCAPE] [--] [COMMAND…]: run COMMAND… on the device (stdin "
      "forwarded; its stdout/stderr stream here and its exit code is ours), or with no COMMAND an "
      "interactive shell. -n: no stdin; -t: a PTY (twice: even without a terminal); -T: no PTY; "
      "-x: no exit code nor stdout/stderr split; -e: the escape character or 'none' (default ~)");
  cmd->callback([&globals, &run] {
    run = [&globals] {
      ShellArgs args;
      if (!read_shell_words(globals.command_words, args)) return 1;
      return run_shell(args, globals);
    };
  });
}

}  // namespace adbwire::cli
