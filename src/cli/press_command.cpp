#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

void add_press_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto key = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "press", "press a key: back, home, enter, recent, … a KEYCODE_ name or a number");
  cmd->add_option("key", *key, "the key")->required();
  cmd->callback([key, &run] { run = [key] { return run_in_session("press", {{"key", *key}}); }; });
}

}  // namespace adbwire::cli
