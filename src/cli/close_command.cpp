#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {

void add_close_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("close", "end a session (disconnects from the device)");
  cmd->add_option("--session", *name, "the session to end (default: --session, else the default)");
  cmd->callback([name, &globals, &run] {
    run = [name, &globals] {
      close_session(globals, name->empty() ? globals.session : *name);
      return print("session closed\n") ? 0 : 1;
    };
  });
}

}  // namespace adbwire::cli
