#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {
namespace {

struct TypeArgs {
  std::uint32_t ref = 0;
  std::string text;
  bool clear = false;
  bool submit = false;
};

}  // namespace

void add_type_command(CLI::App& app, const GlobalOptions&, Run& run) {
  auto args = std::make_shared<TypeArgs>();
  auto* cmd = app.add_subcommand("type", "tap the field [ref=N] and type TEXT into it");
  cmd->add_option("ref", args->ref, "ref number of the field")->required();
  cmd->add_option("text", args->text,
                  "the text (quote it; spaces and shell characters arrive as written)")
      ->required();
  cmd->add_flag("--clear", args->clear, "delete the field's text first");
  cmd->add_flag("--submit", args->submit, "press Enter afterwards");
  cmd->callback([args, &run] {
    run = [args] {
      return run_in_session("type", {{"ref", args->ref},
                                     {"text", args->text},
                                     {"clear", args->clear},
                                     {"submit", args->submit}});
    };
  });
}

}  // namespace adbwire::cli
