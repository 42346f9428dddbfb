#include "cli/front/dispatch.hpp"

#include <algorithm>
#include <iterator>

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

bool is_valued_option(std::string_view word) {
  return std::find(std::begin(kValuedGlobalOptions), std::end(kValuedGlobalOptions), word) !=
         std::end(kValuedGlobalOptions);
}

// "-sVALUE" or "--record=VALUE": the option's name, and the value through value.
std::string_view joined_option(std::string_view word, std::string_view& value) {
  for (const std::string_view name : kValuedGlobalOptions) {
    if (name.starts_with("--")) {
      if (word.size() > name.size() && word.starts_with(name) && word[name.size()] == '=') {
        value = word.substr(name.size() + 1);
        return name;
      }
    } else if (word.size() > name.size() && word.starts_with(name)) {
      value = word.substr(name.size());
      return name;
    }
  }
  return {};
}

}  // namespace

CommandLine scan_command_line(std::span<const char* const> args) {
  CommandLine line;
  std::string_view seen[std::size(kValuedGlobalOptions)];
  std::size_t seen_count = 0;
  auto take = [&](std::string_view name, std::string_view value) {
    if (std::find(seen, seen + seen_count, name) != seen + seen_count) {
      line.plain = false;  // CLI11 refuses a repeated option: the full program says so
    } else {
      seen[seen_count++] = name;  // at most once each, so never more than the array holds
    }
    if (name == "-s") line.serial = value;
    if (name == "--record") line.record = true;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "-h" || word == "--help" || word == "--") {
      line.plain = false;
      continue;
    }
    if (!line.command.empty()) continue;
    std::string_view value;
    if (is_valued_option(word)) {
      if (i + 1 == args.size()) {
        line.plain = false;
        continue;
      }
      take(word, args[++i]);
    } else if (const std::string_view name = joined_option(word, value); !name.empty()) {
      take(name, value);
    } else if (std::find(std::begin(kNoDaemonFlags), std::end(kNoDaemonFlags), word) !=
               std::end(kNoDaemonFlags)) {
      line.no_daemon = true;
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
