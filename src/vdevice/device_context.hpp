// What every connection and shell command of one virtual device shares: the file system
// root, the system properties and the log of injected events.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire::vdevice {

class DeviceContext {
 public:
  // root must exist. serial is what ro.serialno reports.
  DeviceContext(std::filesystem::path root, std::string serial);

  const std::filesystem::path& root() const noexcept { return root_; }

  // Maps a device path into root. Relative paths start at "/" (adbd's shell runs there);
  // ".." stops at "/" as in POSIX. Errors: permission_denied when an existing symlink would
  // lead outside root; invalid_argument for an empty path.
  std::filesystem::path resolve(std::string_view device_path, std::error_code& error) const;

  // System properties, sorted by key (getprop).
  const std::map<std::string, std::string, std::less<>>& properties() const noexcept { return properties_; }

  // Records an input/am/monkey/cmd command line. Thread safe.
  void log_event(std::string line);
  // A copy of the log, oldest first. Thread safe.
  std::vector<std::string> events() const;

 private:
  std::filesystem::path root_;
  std::map<std::string, std::string, std::less<>> properties_;
  mutable std::mutex mutex_;
  std::vector<std::string> events_;  // guarded by mutex_
};

// The product properties the CNXN banner and getprop agree on.
inline constexpr std::string_view kProductName = "adbwire_vdevice";
inline constexpr std::string_view kProductModel = "adbwire_virtual";
inline constexpr std::string_view kProductDevice = "vdevice";

}  // namespace adbwire::vdevice
