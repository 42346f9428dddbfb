#include "services/package_list.hpp"

#include "services/device_command.hpp"

namespace adbwire::detail {

std::vector<std::string> parse_package_list(std::string_view pm_output) {
  constexpr std::string_view kPrefix = "package:";
  std::vector<std::string> names;
  while (!pm_output.empty()) {
    const std::size_t end = pm_output.find('\n');
    const std::string line = trim(pm_output.substr(0, end));
    pm_output = end == std::string_view::npos ? std::string_view() : pm_output.substr(end + 1);
    if (!line.starts_with(kPrefix)) continue;
    std::string_view entry = std::string_view(line).substr(kPrefix.size());
    entry = entry.substr(0, entry.find(' '));  // " uid:10123", " installer=…"
    if (const std::size_t equals = entry.rfind('='); equals != std::string_view::npos)
      entry.remove_prefix(equals + 1);
    if (!entry.empty()) names.emplace_back(entry);
  }
  return names;
}

}  // namespace adbwire::detail
