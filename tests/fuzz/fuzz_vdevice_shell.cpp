// Fuzzes the virtual device's shell parser (what `adb shell CMD` sends it): any text must
// parse or fail with a message, never crash, and every parsed command must have a word or
// a redirect (an empty command is a syntax error, not a command).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "vdevice/shell_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<adbwire::vdevice::ShellCommand> commands;
  std::string error;
  if (!adbwire::vdevice::parse_shell(text, commands, error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  for (const auto& command : commands) {
    if (command.argv.empty() && command.redirects.empty()) std::abort();
    for (const auto& redirect : command.redirects) {
      if (redirect.fd < 0 || redirect.fd > 9) std::abort();
    }
  }
  return 0;
}
