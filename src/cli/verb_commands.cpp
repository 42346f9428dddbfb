// The agent verbs as CLI subcommands, registered from the verb table's data (verbs/verb.hpp; the
// lean front links it alone, adbwire_verb_table): each parameter becomes --name (booleans are
// flags), the verb's positional ones also plain arguments, with the table's constraints (required,
// integer ranges, string choices) checked by the parser as the session would check them, and the
// call goes to the session (`adbwire open`, --session NAME).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "cli/commands.hpp"
#include "cli/session/session.hpp"
#include "verbs/verb.hpp"

namespace adbwire::cli {
namespace {

// Commands of the CLI whose names verbs share: adb's own (one-shot on -s TARGET) keep the name;
// with --session the verb runs in the session instead. snapshot and screenshot have commands of
// their own with CLI-only options, which also run the verb.
bool registered_elsewhere(std::string_view name) {
  return name == "devices" || name == "connect" || name == "install" || name == "uninstall" ||
         name == "push" || name == "pull" || name == "shell" || name == "pair" ||
         name == "snapshot" || name == "screenshot" || name == "webviews";
}

std::string flag_name(std::string_view param) {
  std::string flag = "--" + std::string(param);
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

struct VerbArgs {
  std::map<std::string, std::string> strings;
  std::map<std::string, double> numbers;
  std::map<std::string, std::int64_t> integers;
  std::map<std::string, bool> flags;
  std::vector<CLI::Option*> options;       // as order
  std::vector<const verbs::Param*> order;  // the parameters, positional ones first
  bool print = false;
};

// The table's constraints on option, as CLI11 checks.
void constrain(CLI::Option& option, const verbs::Param& param) {
  if (param.required) option.required();
  if (param.type == verbs::ParamType::integer &&
      (param.minimum != std::numeric_limits<std::int64_t>::min() ||
       param.maximum != std::numeric_limits<std::int64_t>::max())) {
    option.check(CLI::Range(param.minimum, param.maximum));
  }
  if (!param.choices.empty()) {
    std::vector<std::string> choices(param.choices.begin(), param.choices.end());
    option.check(CLI::IsMember(std::move(choices)));
  }
}

void add_verb(CLI::App& app, const GlobalOptions& globals, Run& run, const verbs::Verb& verb) {
  auto args = std::make_shared<VerbArgs>();
  auto* cmd = app.add_subcommand(std::string(verb.name),
                                 std::string(verb.title) + " (in the session; see --help)");
  cmd->footer(std::string(verb.description));
  // Positional arguments are taken in the order they are added: the verb's positional ones
  // first, in its order, then the rest (options only).
  std::vector<const verbs::Param*> order;
  for (const std::string_view name : verb.positional) {
    for (const verbs::Param& param : verb.params) {
      if (param.name == name) order.push_back(&param);
    }
  }
  for (const verbs::Param& param : verb.params) {
    if (std::find(order.begin(), order.end(), &param) == order.end()) order.push_back(&param);
  }
  args->order = order;
  // A verb whose reply is saved as a file prints its path; --print prints its text too.
  if (!verb.cli_file.empty())
    cmd->add_flag("-p,--print", args->print, "print the text after the path of its file");
  for (const verbs::Param* p : order) {
    const verbs::Param& param = *p;
    const std::string name(param.name);
    const bool positional = std::find(verb.positional.begin(), verb.positional.end(), param.name) !=
                            verb.positional.end();
    const std::string names =
        positional ? name + "," + flag_name(param.name) : flag_name(param.name);
    CLI::Option* option = nullptr;
    switch (param.type) {
      case verbs::ParamType::string:
        option = cmd->add_option(names, args->strings[name], std::string(param.description));
        break;
      case verbs::ParamType::number:
        option = cmd->add_option(names, args->numbers[name], std::string(param.description));
        break;
      case verbs::ParamType::integer:
        option = cmd->add_option(names, args->integers[name], std::string(param.description));
        break;
      case verbs::ParamType::boolean:
        option =
            cmd->add_flag(flag_name(param.name), args->flags[name], std::string(param.description));
        break;
    }
    constrain(*option, param);
    args->options.push_back(option);
  }
  cmd->callback([args, &verb, &globals, &run] {
    nlohmann::json arguments = nlohmann::json::object();
    for (std::size_t i = 0; i < args->order.size(); ++i) {
      if (args->options[i]->count() == 0) continue;
      const std::string name(args->order[i]->name);
      switch (args->order[i]->type) {
        case verbs::ParamType::string:
          arguments[name] = args->strings[name];
          break;
        case verbs::ParamType::number:
          arguments[name] = args->numbers[name];
          break;
        case verbs::ParamType::integer:
          arguments[name] = args->integers[name];
          break;
        case verbs::ParamType::boolean:
          arguments[name] = args->flags[name];
          break;
      }
    }
    run = [arguments, &verb, &globals, print = args->print] {
      return run_verb(globals, verb.name, arguments, print);
    };
  });
}

}  // namespace

void add_verb_commands(CLI::App& app, const GlobalOptions& globals, Run& run) {
  for (const verbs::Verb& verb : verbs::all()) {
    if (!registered_elsewhere(verb.name)) add_verb(app, globals, run, verb);
  }
}

void add_verb_command(CLI::App& app, const GlobalOptions& globals, Run& run,
                      std::string_view name) {
  if (const verbs::Verb* verb = verbs::find(name)) add_verb(app, globals, run, *verb);
}

bool takes_only_verb_options(std::string_view name, std::span<const char* const> words) {
  const verbs::Verb* verb = verbs::find(name);
  if (verb == nullptr) return false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (!verb->cli_file.empty() && (word == "-p" || word == "--print")) continue;
    const auto param =
        std::find_if(verb->params.begin(), verb->params.end(), [&](const verbs::Param& p) {
          const std::string flag = flag_name(p.name);
          return word == flag ||
                 (word.starts_with(flag + "=") && p.type != verbs::ParamType::boolean);
        });
    if (param == verb->params.end()) return false;
    if (param->type != verbs::ParamType::boolean && word == flag_name(param->name)) {
      if (++i == words.size()) return false;  // its value is missing: CLI11 words the error
    }
  }
  return true;
}

bool is_session_verb(std::string_view name) {
  return verbs::find(name) != nullptr && !registered_elsewhere(name);
}

}  // namespace adbwire::cli
