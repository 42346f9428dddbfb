// The package names `pm list packages` prints. Pure: tested on real output
// (tests/unit/services/data/PROVENANCE.md). Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace adbwire::detail {

// The names of `pm list packages [-f] [-3] [-U] [-i]` output, in output order. Each line is
// "package:NAME"; -f gives "package:APK_PATH=NAME", where the path may hold '=' itself (Android
// 11+: /data/app/~~RANDOM==/NAME-RANDOM==/base.apk), so the name is what follows the last '=';
// -U and -i append " uid:N" and " installer=NAME", which are dropped. Lines that do not start
// with "package:" (warnings, a blank end) are skipped.
std::vector<std::string> parse_package_list(std::string_view pm_output);

// The names and versionCodes of `pm list packages --show-versioncode` output (Android 9+), in
// output order: each line is "package:NAME versionCode:N"; a line without a versionCode gives
// nullopt. An older pm refuses the option with an error line and lists nothing.
std::vector<std::pair<std::string, std::optional<std::uint64_t>>> parse_package_versions(
    std::string_view pm_output);

}  // namespace adbwire::detail
