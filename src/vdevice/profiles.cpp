// Kinds of device the virtual device plays: what older adbd versions lack, one axis each, and
// android-4 with all of them at once. Dates are the Android releases that brought each thing.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "vdevice/device_context.hpp"

namespace adbwire {
namespace {

constexpr VirtualDeviceProfile kProfiles[] = {
    {"default", "everything the virtual device implements (Android 14-like)"},
    {"checksum", "protocol 0x01000000: every message's data checksum sent and verified (< 9)"},
    {"payload-4k", "4 KiB maximum payload (< 7)"},
    {"payload-256k", "256 KiB maximum payload (7-8)"},
    {"no-features", "no features in the banner at all (< 7)"},
    {"no-shell-v2", "no shell_v2: shell protocol v1, stdout and stderr merged, no exit status"},
    {"no-exec", "exec: refused (< 5); shell: commands get a translating PTY"},
    {"no-sync-v2", "no stat_v2, ls_v2, sendrecv_v2*: sync v1 only"},
    {"no-cmd", "no cmd: installs go through pm (< 7)"},
    {"android-4",
     "all of checksum, payload-4k, no-features, no-exec, API 19 (a KitKat phone: no bugreportz)"},
    {"sideload",
     "recovery's sideload mode: state sideload, sideload-host: takes a package into "
     "/sideload/package.zip"},
};

std::vector<std::string> features_without(std::initializer_list<std::string_view> prefixes) {
  std::vector<std::string> features = vdevice::implemented_features();
  std::erase_if(features, [&](const std::string& feature) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](std::string_view prefix) { return feature.starts_with(prefix); });
  });
  return features;
}

}  // namespace

std::span<const VirtualDeviceProfile> virtual_device_profiles() noexcept { return kProfiles; }

void apply_profile(VirtualDeviceOptions& options, std::string_view name) {
  const VirtualDeviceOptions defaults;
  options.protocol_version = defaults.protocol_version;
  options.max_payload = defaults.max_payload;
  options.features.clear();
  options.no_features = false;
  options.refused_services.clear();
  options.legacy_pty = false;
  options.api_level = defaults.api_level;
  options.sideload = defaults.sideload;
  if (name == "default") return;
  if (name == "checksum") {
    options.protocol_version = protocol::kVersionMin;
  } else if (name == "payload-4k") {
    options.max_payload = protocol::kMaxPayloadV1;
  } else if (name == "payload-256k") {
    options.max_payload = protocol::kMaxPayloadV2;
  } else if (name == "no-features") {
    options.no_features = true;
  } else if (name == "no-shell-v2") {
    options.features = features_without({"shell_v2"});
  } else if (name == "no-exec") {
    options.refused_services = {"exec:"};
    options.legacy_pty = true;
  } else if (name == "no-sync-v2") {
    options.features = features_without({"stat_v2", "ls_v2", "sendrecv_v2"});
  } else if (name == "sideload") {
    options.sideload = SideloadMode::on;
  } else if (name == "no-cmd") {
    options.features = features_without({"cmd"});
  } else if (name == "android-4") {
    options.protocol_version = protocol::kVersionMin;
    options.max_payload = protocol::kMaxPayloadV1;
    options.no_features = true;
    options.refused_services = {"exec:"};
    options.legacy_pty = true;
    options.api_level = 19;
    if (std::find(options.missing_commands.begin(), options.missing_commands.end(), "bugreportz") ==
        options.missing_commands.end()) {
      options.missing_commands.emplace_back("bugreportz");  // Android 7 brought it
    }
  } else {
    std::string known;
    for (const VirtualDeviceProfile& profile : kProfiles) {
      if (!known.empty()) known += ", ";
      known += profile.name;
    }
    throw Error(errc::invalid_argument,
                "no virtual device profile '" + std::string(name) + "'; known: " + known);
  }
}

std::vector<std::string> vdevice::implemented_features() {
  return {"shell_v2",        "cmd",
          "stat_v2",         "ls_v2",
          "sendrecv_v2",     "sendrecv_v2_brotli",
          "sendrecv_v2_lz4", "sendrecv_v2_zstd"};
}

}  // namespace adbwire
