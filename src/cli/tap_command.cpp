#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {

void add_tap_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto ref = std::make_shared<std::uint32_t>(0);
  auto* cmd = app.add_subcommand("tap", "tap the element [ref=N] of the session's last snapshot");
  cmd->add_option("ref", *ref, "ref number from `adbwire snapshot`")->required();
  cmd->callback([ref, &run] { run = [ref] { return run_in_session("tap", {{"ref", *ref}}); }; });
}

}  // namespace adbwire::cli
