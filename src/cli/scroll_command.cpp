#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {
namespace {

struct ScrollArgs {
  std::uint32_t ref = 0;
  std::string direction;
};

}  // namespace

void add_scroll_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto args = std::make_shared<ScrollArgs>();
  auto* cmd = app.add_subcommand(
      "scroll", "scroll inside the element [ref=N] to bring content from DIRECTION into view");
  cmd->add_option("ref", args->ref, "ref number of a scrollable element")->required();
  cmd->add_option("direction", args->direction, "up, down, left or right")
      ->required()
      ->check(CLI::IsMember({"up", "down", "left", "right"}));
  cmd->callback([args, &run] {
    run = [args] {
      return run_in_session("scroll", {{"ref", args->ref}, {"direction", args->direction}});
    };
  });
}

}  // namespace adbwire::cli
