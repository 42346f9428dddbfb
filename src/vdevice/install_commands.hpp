// The package manager of the virtual device: `cmd package` / `pm` install (streamed with -S,
// or from a file), split sessions (install-create / install-write / install-commit /
// install-abandon), uninstall, list packages and path, `dumpsys package`, with the answers the real
// tools print.
//
// A real APK names its package in a binary AndroidManifest.xml; the virtual device instead
// looks for the text markers "package=NAME", "versionCode=N" and "label=NAME" in the APK's
// first 64 KiB (tests build such files). With them it remembers the package, so a lower versionCode
// without -d fails with INSTALL_FAILED_VERSION_DOWNGRADE as on a phone.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

// The app every virtual device has installed (its screens are this app's), labelled
// kDemoLabel.
inline constexpr std::string_view kDemoPackage = "com.example.adbwire.demo";
inline constexpr std::string_view kDemoLabel = "adbwire demo";

// Where an installed app's base APK lies on the device ("/data/app/PACKAGE-1/base.apk").
std::string base_apk_path(std::string_view package);

// `dumpsys package PACKAGE`: the package's section with its versionCode, as PackageManager
// prints it (the lines a host reads; a phone's has dozens more). Returns the exit status.
int package_dumpsys(const std::vector<std::string>& argv, JobIo& io);

// The job for a package verb; args start at the verb ("install", "list", …). nullptr for a
// verb it does not know (the caller then succeeds silently, as for other cmd services).
std::unique_ptr<Job> package_job(const std::vector<std::string>& args);

}  // namespace adbwire::vdevice
