#include "services/package_list.hpp"

#include <algorithm>

#include "base/number.hpp"
#include "services/device_command.hpp"

namespace adbwire::detail {

namespace {

// Calls each(name, rest) for every "package:" line; rest is what follows the name (" uid:…").
template <typename Each>
void for_each_package(std::string_view pm_output, Each each) {
  constexpr std::string_view kPrefix = "package:";
  while (!pm_output.empty()) {
    const std::size_t end = pm_output.find('\n');
    const std::string line = trim(pm_output.substr(0, end));
    pm_output = end == std::string_view::npos ? std::string_view() : pm_output.substr(end + 1);
    if (!line.starts_with(kPrefix)) continue;
    std::string_view entry = std::string_view(line).substr(kPrefix.size());
    const std::size_t space = std::min(entry.find(' '), entry.size());
    const std::string_view rest = entry.substr(space);
    entry = entry.substr(0, space);  // " uid:10123", " installer=…", " versionCode:7"
    if (const std::size_t equals = entry.rfind('='); equals != std::string_view::npos)
      entry.remove_prefix(equals + 1);
    if (!entry.empty()) each(entry, rest);
  }
}

}  // namespace

std::vector<std::string> parse_package_list(std::string_view pm_output) {
  std::vector<std::string> names;
  for_each_package(pm_output,
                   [&](std::string_view name, std::string_view) { names.emplace_back(name); });
  return names;
}

std::vector<std::pair<std::string, std::optional<std::uint64_t>>> parse_package_versions(
    std::string_view pm_output) {
  constexpr std::string_view kVersion = " versionCode:";
  std::vector<std::pair<std::string, std::optional<std::uint64_t>>> packages;
  for_each_package(pm_output, [&](std::string_view name, std::string_view rest) {
    std::optional<std::uint64_t> version;
    if (const std::size_t at = rest.find(kVersion); at != std::string_view::npos) {
      std::string_view digits = rest.substr(at + kVersion.size());
      digits = digits.substr(0, digits.find(' '));
      version = parse_number<std::uint64_t>(digits);
    }
    packages.emplace_back(std::string(name), version);
  });
  return packages;
}

}  // namespace adbwire::detail
