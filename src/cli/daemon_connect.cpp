#include "cli/daemon_connect.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
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

bool full_program_uses_daemon(const GlobalOptions& globals) {
  const std::string serial = default_serial();
  const std::string_view target =
      globals.serial.empty() ? std::string_view(serial) : globals.serial;
  return daemon_serves(target, globals.no_daemon, !globals.record.empty(), env("ADBWIRE_NO_DAEMON"),
                       env("ADBWIRE_NO_HOLDER"));
}

namespace {

// Whole seconds, 1 to kMaxIdleSeconds, from the environment variable `name` (else its old name
// `holder_name`, of the connection holder's days); fallback when neither is set.
std::chrono::seconds seconds_from(const char* name, const char* holder_name,
                                  std::chrono::seconds fallback) {
  if (env(name).empty()) name = holder_name;
  const std::string_view value = env(name);
  if (value.empty()) return fallback;
  long seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || seconds < 1 ||
      seconds > kMaxIdleSeconds) {
    throw Error(errc::invalid_argument, std::string(name) + "=" + std::string(value) +
                                            ": give whole seconds, 1 to " +
                                            std::to_string(kMaxIdleSeconds));
  }
  return std::chrono::seconds(seconds);
}

}  // namespace

daemon::DaemonStart daemon_start(const GlobalOptions& globals) {
  if (globals.full_program.empty()) {
    throw Error(errc::not_found,
                "cannot find adbwire-full, the program behind adbwire that runs the daemon; "
                "reinstall adbwire");
  }
  daemon::DaemonStart start;
  start.program = globals.full_program;
  start.idle = seconds_from("ADBWIRE_DAEMON_IDLE", "ADBWIRE_HOLDER_IDLE", start.idle);
  start.open_wait =
      seconds_from("ADBWIRE_DAEMON_OPEN_WAIT", "ADBWIRE_HOLDER_OPEN_WAIT", start.open_wait);
  return start;
}

Device connect_through_daemon(const GlobalOptions& globals) {
  const ConnectOptions options = connect_options(globals);
  const std::string target = globals.serial.empty() ? default_serial() : globals.serial;
  return daemon::connect_through_daemon(
      target, daemon_start(globals), options.auth_timeout, options.limits,
      [](std::string_view note) { print_error("adbwire: " + std::string(note)); });
}

std::int64_t milliseconds_left(Deadline deadline) {
  if (deadline == kDefaultDeadline) return -1;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return std::max<std::int64_t>(left, 0);
}

}  // namespace adbwire::cli
