#include "cli/daemon_connect.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/target.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

constexpr long kMaxIdleSeconds = 7 * 24 * 3600;

bool set_and_not_zero(std::string_view value) { return !value.empty() && value != "0"; }

std::string_view env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

}  // namespace

bool daemon_serves(std::string_view target, bool opted_out, bool record,
                   std::string_view env_no_daemon, std::string_view env_no_holder) {
  if (opted_out || record || set_and_not_zero(env_no_daemon) || set_and_not_zero(env_no_holder))
    return false;
  if (target.empty()) return false;
  std::error_code error;
  const Target parsed = Target::parse(target, error);
  return !error && parsed.kind() != Target::Kind::server;
}

daemon::DaemonStart daemon_start(const GlobalOptions& globals) {
  if (globals.full_program.empty()) {
    throw Error(errc::not_found,
                "cannot find adbwire-full, the program behind adbwire that runs the daemon; "
                "reinstall adbwire");
  }
  daemon::DaemonStart start;
  start.program = globals.full_program;
  const char* name =
      env("ADBWIRE_DAEMON_IDLE").empty() ? "ADBWIRE_HOLDER_IDLE" : "ADBWIRE_DAEMON_IDLE";
  const std::string_view value = env(name);
  if (value.empty()) return start;
  long seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || seconds < 1 ||
      seconds > kMaxIdleSeconds) {
    throw Error(errc::invalid_argument, std::string(name) + "=" + std::string(value) +
                                            ": give whole seconds, 1 to " +
                                            std::to_string(kMaxIdleSeconds));
  }
  start.idle = std::chrono::seconds(seconds);
  return start;
}

Device connect_through_daemon(const GlobalOptions& globals) {
  const ConnectOptions options = connect_options(globals);
  const std::string target =
      globals.serial.empty() ? std::string(env("ANDROID_SERIAL")) : globals.serial;
  return daemon::connect_through_daemon(
      target, daemon_start(globals), options.auth_timeout,
      [](std::string_view note) { std::fprintf(stderr, "adbwire: %s\n", shown(note).c_str()); });
}

}  // namespace adbwire::cli
