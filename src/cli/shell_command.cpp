// adbwire shell [-n] [-t|-tt|-T] [-x] [-e ESCAPE] [COMMAND…]: adb shell, flag for flag
// (client/commandline.cpp adb_shell): stdin forwarded, a PTY and a raw local terminal for an
// interactive shell, window sizes and the ~. escape.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

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
  TimeoutOption timeout{.fallback = kNoDeadline};
  bool no_stdin = false;
  int force_pty = 0;  // how many -t
  bool no_pty = false;
  bool v1 = false;
  std::string escape = "~";
};

// adb's PtyAllocationMode, in its order: -t once asks (granted only with a terminal on stdin),
// twice insists.
enum class Pty { automatic, no, yes, definitely };

char escape_char(const std::string& text) {
  if (text == "none") return 0;
  if (text.size() != 1)
    throw Error(errc::invalid_argument, "-e takes a single character or 'none'");
  return text[0];
}

int run_shell(const ShellArgs& args, const std::string& command, const GlobalOptions& globals) {
  const char escape = escape_char(args.escape);
  Device device = connect_device(globals);
  const bool device_v2 = device.has_feature("shell_v2");
  bool v2 = device_v2 && !args.v1;
  Pty pty = v2 ? Pty::automatic : Pty::definitely;
  if (args.no_pty) pty = Pty::no;
  for (int i = 0; i < args.force_pty; ++i)
    pty = pty == Pty::yes || pty == Pty::definitely ? Pty::definitely : Pty::yes;

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

  const Deadline deadline = args.timeout.deadline();
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
  auto args = std::make_shared<ShellArgs>();
  auto* cmd = app.add_subcommand(
      "shell",
      "run COMMAND… on the device (stdin forwarded; its stdout/stderr stream here and its exit "
      "code is ours), or with no COMMAND an interactive shell");
  cmd->prefix_command();
  cmd->add_flag("-n", args->no_stdin, "don't read from stdin");
  cmd->add_flag_function(
      "-t", [args](std::int64_t count) { args->force_pty = static_cast<int>(count); },
      "allocate a PTY on the device (twice: even when stdin is not a terminal)");
  cmd->add_flag("-T", args->no_pty, "disable PTY allocation");
  cmd->add_flag("-x", args->v1, "disable remote exit codes and stdout/stderr separation");
  cmd->add_option("-e", args->escape,
                  "escape character for an interactive shell, or 'none' (default '~': ~. at the "
                  "start of a line disconnects)");
  add_timeout_option(*cmd, args->timeout, "--timeout");
  cmd->callback([cmd, args, &globals, &run] {
    const std::string command = join_command(cmd->remaining());
    run = [command, args, &globals] { return run_shell(*args, command, globals); };
  });
}

}  // namespace adbwire::cli
