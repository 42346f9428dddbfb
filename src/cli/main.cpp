// adbwire-full: every subcommand and the daemon (the lean front, front/front_main.cpp, hands it
// every call it does not serve itself, with the same argv).
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/program.hpp"

int main(int argc, char** argv) {
  using namespace adbwire::cli;
  keep_standard_descriptors();
  CLI::App app{kProgramDescription};
  app.require_subcommand(1);
  GlobalOptions globals;
  globals.connector = connect_from_full_program;
  std::error_code error;
  globals.full_program = std::filesystem::read_symlink("/proc/self/exe", error);
  add_global_options(app, globals);
  Run run;
  for (AddCommand add : kCommands) add(app, globals, run);
  return parse_and_run(app, globals, run, argc, argv);
}
