#include "adbwire/protocol/constants.hpp"

namespace adbwire::protocol {

std::string_view command_name(std::uint32_t command) noexcept {
  switch (command) {
    case kCommandSync:
      return "SYNC";
    case kCommandCnxn:
      return "CNXN";
    case kCommandAuth:
      return "AUTH";
    case kCommandOpen:
      return "OPEN";
    case kCommandOkay:
      return "OKAY";
    case kCommandClse:
      return "CLSE";
    case kCommandWrte:
      return "WRTE";
    case kCommandStls:
      return "STLS";
  }
  return "????";
}

}  // namespace adbwire::protocol
