// adbwire, the program users run: a lean front that starts in about a millisecond. It finds the
// subcommand in argv before building any parser; the few it serves (front/dispatch.cpp) get only
// their own CLI11 parser and reach the device through the connection holder; every other call
// becomes the full program by exec, argv unchanged. src/cli/README.md tells the design.
#include <cstdlib>

#include "cli/commands.hpp"
#include "cli/front/dispatch.hpp"
#include "cli/front/front_connect.hpp"
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
  const front::FrontCommand* command = front::front_command(
      line, {.android_serial = env("ANDROID_SERIAL"), .no_holder = env("ADBWIRE_NO_HOLDER")});
  if (command == nullptr) return front::exec_full_program(argv);
  CLI::App app{kProgramDescription};
  app.require_subcommand(1);
  GlobalOptions globals;
  globals.connector = front::connect_through_holder;
  add_global_options(app, globals);
  Run run;
  if (command->add != nullptr) {
    command->add(app, globals, run);
  } else {
    add_verb_command(app, globals, run, line.command);
  }
  return parse_and_run(app, run, argc, argv);
}
