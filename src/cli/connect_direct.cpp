// The full program's way to a device: through the daemon, or Device::connect (the whole
// connection runtime) for what the daemon does not carry.
#include <cstdlib>

#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/device_selection.hpp"

namespace adbwire::cli {
namespace {

std::string_view env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

}  // namespace

Device connect_directly(const GlobalOptions& globals) {
  return Device::connect(globals.serial, connect_options(globals));
}

bool full_program_uses_daemon(const GlobalOptions& globals) {
  const std::string_view target = globals.serial.empty() ? env("ANDROID_SERIAL") : globals.serial;
  return daemon_serves(target, globals.no_daemon, !globals.record.empty(), env("ADBWIRE_NO_DAEMON"),
                       env("ADBWIRE_NO_HOLDER"));
}

Device connect_from_full_program(const GlobalOptions& given) {
  GlobalOptions globals = given;
  globals.serial = select_target(given);
  return full_program_uses_daemon(globals) ? connect_through_daemon(globals)
                                           : connect_directly(globals);
}

}  // namespace adbwire::cli
