#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {
namespace {

struct LaunchArgs {
  std::string package;
  std::string activity;
};

}  // namespace

void add_launch_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto args = std::make_shared<LaunchArgs>();
  auto* cmd =
      app.add_subcommand("launch", "start an app by package (its launcher activity, or ACTIVITY)");
  cmd->add_option("package", args->package, "for example com.android.settings")->required();
  cmd->add_option("activity", args->activity, "for example .Settings");
  cmd->callback([args, &run] {
    run = [args] {
      return run_in_session("launch", {{"package", args->package}, {"activity", args->activity}});
    };
  });
}

}  // namespace adbwire::cli
