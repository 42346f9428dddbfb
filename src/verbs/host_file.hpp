// Files of this computer that a verb reads on an agent's word: install's APK. A screen can
// prompt-inject an agent, so an agent's path must never be the way a private file (the adb key,
// saved screens) leaves the host: a verb reads only an APK (a ZIP holding AndroidManifest.xml)
// inside a folder the operator allowed, never inside a folder holding adbwire's keys or files.
// Internal.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace adbwire::verbs {

// What verbs may read (Options::host_files).
struct HostFileRules {
  // Folders the operator allowed (adbwire mcp --allow-install-from DIR); empty: none, and
  // every read is refused.
  std::vector<std::filesystem::path> allowed;
  // Never read, even inside an allowed folder: the adb key folder and vendor keys, the runtime
  // folder, the folder of saved files. A path that does not exist is ignored.
  std::vector<std::filesystem::path> off_limits;
};

// One APK opened for a verb after the rules were checked on the file actually opened. path() is
// /proc/self/fd/N: whatever is renamed or linked afterwards, the bytes read are that file's.
// Move-only; closes the file.
class CheckedApk {
 public:
  CheckedApk(CheckedApk&& other) noexcept;
  CheckedApk& operator=(CheckedApk&&) = delete;
  CheckedApk(const CheckedApk&) = delete;
  ~CheckedApk();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  friend CheckedApk open_apk(const HostFileRules& rules, const std::string& given);
  CheckedApk(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

// Opens `given` for a verb. Throws Error: permission_denied (no folder allowed, outside the
// allowed folders, inside an off-limits one: the message says which and how to allow one),
// not_found (no such file), invalid_argument (not a regular file, or not an APK: not a ZIP, or
// no AndroidManifest.xml in it).
CheckedApk open_apk(const HostFileRules& rules, const std::string& given);

}  // namespace adbwire::verbs
