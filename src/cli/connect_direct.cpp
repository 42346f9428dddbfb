// The full program's way to a device: Device::connect, the whole connection runtime.
#include "cli/connect.hpp"

namespace adbwire::cli {

Device connect_directly(const GlobalOptions& globals) {
  return Device::connect(globals.serial, connect_options(globals));
}

}  // namespace adbwire::cli
