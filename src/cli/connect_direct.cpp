// The full program's way to a device: through the daemon, or Device::connect (the whole
// connection runtime) for what the daemon does not carry.
#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/device_selection.hpp"

namespace adbwire::cli {

Device connect_directly(const GlobalOptions& globals) {
  return Device::connect(globals.serial, connect_options(globals));
}

Device connect_from_full_program(const GlobalOptions& given) {
  GlobalOptions globals = given;
  globals.serial = select_target(given);
  return full_program_uses_daemon(globals) ? connect_through_daemon(globals)
                                           : connect_directly(globals);
}

}  // namespace adbwire::cli
