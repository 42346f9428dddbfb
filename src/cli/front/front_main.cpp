// adbwire, the program users run: a lean front that starts in about a millisecond. It finds the
// subcommand in argv before building any parser; the few it serves (front/dispatch.cpp) get only
// their own CLI11 parser and reach the device through the daemon; every other call becomes the
// full program by exec, argv unchanged. src/cli/README.md tells the design.
#include <cstdlib>
#include <exception>

#include "adbwire/target.hpp"
#include "cli/commands.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/front/dispatch.hpp"
#include "cli/front/full_program.hpp"
#include "cli/program.hpp"

namespace {

std::string_view env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace adbwire::cli;
  keep_standard_descriptors();
  const front::CommandLine line =
      front::scan_command_line(std::span<const char* const>(argv + 1, argv + argc));
  const std::string serial = adbwire::default_serial();
  const front::FrontCommand* command =
      front::front_command(line, {.android_serial = serial,
                                  .no_daemon = env("ADBWIRE_NO_DAEMON"),
                                  .no_holder = env("ADBWIRE_NO_HOLDER")});
  if (command == nullptr) return front::exec_full_program(argv);
  CLI::App app{kProgramDescription};
  app.require_subcommand(1);
  GlobalOptions globals;
  globals.connector = connect_through_daemon;
  // The daemon's identity comes from the full program's file; a front without one can still
  // reach a daemon the user named ($ADBWIRE_SESSION), and says what is missing when it must
  // start one (daemon_start).
  try {
    globals.full_program = front::full_program_path();
  } catch (const std::exception&) {
  }
  add_global_options(app, globals);
  Run run;
  if (command->add != nullptr) {
    command->add(app, globals, run);
  } else {
    add_verb_command(app, globals, run, line.command);
  }
  return parse_and_run(app, globals, run, argc, argv);
}
