#include "cli/front/front_connect.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adbwire/error.hpp"
#include "adbwire/target.hpp"
#include "cli/connect.hpp"
#include "cli/front/full_program.hpp"
#include "cli/holder/holder_client.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli::front {
namespace {

using namespace std::chrono_literals;

constexpr long kMaxIdleSeconds = 7 * 24 * 3600;

// Whole seconds from the environment variable `name`, 1 to kMaxIdleSeconds; `fallback` when unset.
std::chrono::seconds seconds_from(const char* name, std::chrono::seconds fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  const std::string_view value = text;
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

Device connect_through_holder(const GlobalOptions& globals) {
  const ConnectOptions options = connect_options(globals);
  const Target target = Target::parse(globals.serial);
  holder::HolderStart start;
  start.program = full_program_path();
  if (globals.auth_timeout >= 0)
    start.flags = {"--auth-timeout", std::to_string(globals.auth_timeout)};
  start.idle = seconds_from("ADBWIRE_HOLDER_IDLE", 1800s);
  start.open_wait = seconds_from("ADBWIRE_HOLDER_OPEN_WAIT", 30s);
  start.ready_wait = options.connect_timeout + options.auth_timeout + 5s;
  return holder::connect_through_holder(
      target, start, [](std::string_view note) { print_error("adbwire: " + std::string(note)); });
}

}  // namespace adbwire::cli::front
