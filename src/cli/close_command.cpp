#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

void add_close_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("close", "end a session (disconnects from the device)");
  cmd->add_option("--session", *name, "the session to end (default: --session, else the default)");
  cmd->callback([name, &globals, &run] {
    run = [name, &globals] {
      close_session(globals, name->empty() ? globals.session : *name);
      std::puts("session closed");
      return std::fflush(stdout) == 0 ? 0 : 1;
    };
  });
}

}  // namespace adbwire::cli
