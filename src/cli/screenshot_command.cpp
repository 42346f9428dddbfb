#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

void add_screenshot_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto* cmd = app.add_subcommand("screenshot",
                                 "save the screen as .adbwire/screenshot-N.png and print the path");
  cmd->callback(
      [&run] { run = [] { return run_in_session("screenshot", nlohmann::json::object()); }; });
}

}  // namespace adbwire::cli
