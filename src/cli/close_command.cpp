#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

void add_close_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto* cmd = app.add_subcommand("close", "end the session (disconnects from the device)");
  cmd->callback([&run] { run = [] { return run_in_session("close", nlohmann::json::object()); }; });
}

}  // namespace adbwire::cli
