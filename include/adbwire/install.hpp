// Installing and uninstalling apps, as `adb install` / `adb install-multiple` / `adb uninstall`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// How the APK bytes reach the package manager.
enum class InstallMethod {
  automatic,  // streamed when the device offers `cmd` (and exec:), else push
  streamed,   // `cmd package install -S SIZE` (or abb_exec:package\0install…) with the APK
              // written into the stream: nothing is stored on the device first
  push,       // sync push to /data/local/tmp, `pm install PATH`, then the file is removed
};

struct InstallOptions {
  bool replace = true;             // -r: reinstall an installed app, keeping its data
  bool downgrade = false;          // -d: allow a lower versionCode
  bool grant_permissions = false;  // -g: grant every runtime permission in the manifest
  bool allow_test = false;         // -t: allow android:testOnly APKs
  InstallMethod method = InstallMethod::automatic;
  // Extra pm flags passed unchanged ("--user", "0", "--abi", "arm64-v8a" …). Each must be
  // made of [A-Za-z0-9._=:/-] (they travel through a shell command line).
  std::vector<std::string> extra_args;
};

// Bytes of APK sent so far out of total (every APK of the call); called after each chunk.
// Runs on the calling thread; may throw to abandon the install (the exception propagates).
using InstallProgressHandler = std::function<void(std::uint64_t sent, std::uint64_t total)>;

// Installs one APK, or several as the splits of one app (one install session:
// install-create, install-write -S per APK, install-commit; on failure the session is
// abandoned). The APK bytes are read from the host file as they are sent (bounded memory).
// Returns the package manager's answer ("Success\n").
// Deadline: an explicit one bounds the whole call; kDefaultDeadline bounds each wait for the
// device by ConnectOptions::command_timeout, so a large APK that keeps moving never times
// out but a stalled one does.
// Errors: command_failed (the package manager refused: the message carries its text word for
// word, "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: …]"), invalid_argument (no APK, a bad
// extra_arg, several APKs with InstallMethod::push), not_found (an APK cannot be read),
// not_supported (streamed asked for but the device lacks `cmd`), and those of Device::open
// and Stream. Not thread safe with respect to other installs on the same device.
std::string install(Device& device, const std::vector<std::filesystem::path>& apks,
                    const InstallOptions& options = {}, const InstallProgressHandler& progress = {},
                    Deadline deadline = kDefaultDeadline);
std::string install(Device& device, const std::vector<std::filesystem::path>& apks,
                    const InstallOptions& options, const InstallProgressHandler& progress,
                    Deadline deadline, std::error_code& error);

// `pm uninstall [-k] PACKAGE` (keep_data: -k keeps the app's data and caches). Returns the
// answer ("Success\n"). Errors: invalid_argument (not a package name), command_failed (the
// answer is not Success: "Failure [DELETE_FAILED_INTERNAL_ERROR]" for an unknown package,
// word for word in the message), and those of Device::shell.
std::string uninstall(Device& device, std::string_view package, bool keep_data = false,
                      Deadline deadline = kDefaultDeadline);
std::string uninstall(Device& device, std::string_view package, bool keep_data, Deadline deadline,
                      std::error_code& error);

}  // namespace adbwire
