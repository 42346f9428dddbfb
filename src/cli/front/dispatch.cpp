#include "cli/front/dispatch.hpp"

#include <algorithm>
#include <iterator>
#include <variant>

#include "cli/commands.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/program.hpp"

namespace adbwire::cli::front {
namespace {

// What the front serves. Every other subcommand runs in the full program.
constexpr FrontCommand kFrontCommands[] = {
    {"version", add_version_command, false},
    {"shell", add_shell_command, true},
    {"exec-out", add_exec_out_command, true},
    {"pull", add_front_pull_command, true},
    {"push", add_front_push_command, true},
    {"start-server", add_start_server_command, false},
    {"kill-server", add_kill_server_command, false},
};

// `adbwire snapshot` in the session, with only the snapshot verb's options (and --print): the
// session's reply, nothing from the library. A target, --xml, --helper, --no-web and anything
// else are the full program's.
bool is_session_snapshot(const CommandLine& line, const Environment& environment) {
  return line.command == "snapshot" && line.serial.empty() && environment.android_serial.empty() &&
         takes_only_verb_options("snapshot", line.after);
}

// Whether word is one of the names of global ("-s", "--no-daemon,--no-holder" has two).
bool names_it(const GlobalOption& global, std::string_view word) {
  std::string_view names = global.names;
  while (!names.empty()) {
    const std::size_t comma = std::min(names.find(','), names.size());
    if (names.substr(0, comma) == word) return true;
    names.remove_prefix(std::min(comma + 1, names.size()));
  }
  return false;
}

// The global option word names, alone ("-s") or joined to its value ("-sVALUE",
// "--record=VALUE", which sets value); nullptr for none.
const GlobalOption* global_option(std::string_view word, std::string_view& value, bool& joined) {
  joined = false;
  for (const GlobalOption& global : kGlobalOptions) {
    if (names_it(global, word)) return &global;
    if (!global.takes_value()) continue;
    const std::string_view name = global.names;
    const bool long_name = name.starts_with("--");
    if (word.size() > name.size() && word.starts_with(name) &&
        (!long_name || word[name.size()] == '=')) {
      value = word.substr(name.size() + (long_name ? 1 : 0));
      joined = true;
      return &global;
    }
  }
  return nullptr;
}

}  // namespace

CommandLine scan_command_line(std::span<const char* const> args) {
  CommandLine line;
  bool seen[std::size(kGlobalOptions)] = {};
  auto take = [&](const GlobalOption& global, std::string_view value) {
    bool& taken = seen[&global - std::begin(kGlobalOptions)];
    const bool repeatable =
        std::holds_alternative<std::vector<std::string> GlobalOptions::*>(global.member);
    if (taken && !repeatable)
      line.plain = false;  // CLI11 refuses a repeat: the full program says so
    taken = true;
    if (std::holds_alternative<std::string GlobalOptions::*>(global.member)) {
      const auto member = std::get<std::string GlobalOptions::*>(global.member);
      if (member == &GlobalOptions::serial) line.serial = value;
      if (member == &GlobalOptions::record) line.record = true;
      if (member == &GlobalOptions::transport_id) line.plain = false;
    }
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "-h" || word == "--help" || word == "--") {
      line.plain = false;
      continue;
    }
    if (!line.command.empty()) continue;
    std::string_view value;
    bool joined = false;
    if (const GlobalOption* global = global_option(word, value, joined)) {
      if (!global->takes_value()) {
        const auto flag = std::get<bool GlobalOptions::*>(global->member);
        if (flag == &GlobalOptions::no_daemon) line.no_daemon = true;
        // -d and -e choose among the devices listed: the full program lists them.
        if (flag == &GlobalOptions::usb_only || flag == &GlobalOptions::tcp_only)
          line.plain = false;
      } else if (joined) {
        take(*global, value);
      } else if (i + 1 == args.size()) {
        line.plain = false;
      } else {
        take(*global, args[++i]);
      }
    } else if (word.starts_with("-")) {
      line.plain = false;
    } else {
      line.command = word;
      line.after = args.subspan(i + 1);
    }
  }
  return line;
}

const FrontCommand* front_command(const CommandLine& line, const Environment& environment) {
  if (!line.plain || line.command.empty()) return nullptr;
  // A session verb talks to the session daemon's local socket: nothing heavy to load.
  static constexpr FrontCommand kSessionVerbs{"session verbs", nullptr, false};
  if (is_session_verb(line.command)) return &kSessionVerbs;
  static constexpr FrontCommand kSessionSnapshot{"session snapshot", nullptr, false};
  if (is_session_snapshot(line, environment)) return &kSessionSnapshot;
  const auto* command = std::find_if(std::begin(kFrontCommands), std::end(kFrontCommands),
                                     [&](const FrontCommand& c) { return c.name == line.command; });
  if (command == std::end(kFrontCommands)) return nullptr;
  if (!command->reaches_device) return command;
  const std::string_view target = line.serial.empty() ? environment.android_serial : line.serial;
  return daemon_serves(target, line.no_daemon, line.record, environment.no_daemon,
                       environment.no_holder)
             ? command
             : nullptr;
}

}  // namespace adbwire::cli::front
