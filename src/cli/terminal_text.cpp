#include "cli/terminal_text.hpp"

#include <algorithm>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::cli {

std::string shown(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (start != 0) out += '\n';
    out += protocol::printable(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace adbwire::cli
