// Files of this computer that a verb reads or writes on an agent's word: install's APK, push's
// file, pull's copy. A screen can prompt-inject an agent, so an agent's path must never be the
// way a private file (the adb key, saved screens) leaves the host, nor the way a device's bytes
// land where the operator did not agree: a verb reads and writes only inside a folder the
// operator allowed, never inside a folder holding adbwire's keys or files (install reads only an
// APK: a ZIP holding AndroidManifest.xml). Internal.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::verbs {

// What verbs may read (Options::host_files).
struct HostFileRules {
  // Folders the operator allowed (adbwire mcp --allow-install-from DIR): install and push read
  // there, pull writes there; empty: none, and every read and write is refused.
  std::vector<std::filesystem::path> allowed;
  // Never read, even inside an allowed folder: the adb key folder and vendor keys, the runtime
  // folder, the folder of saved files. A path that does not exist is ignored.
  std::vector<std::filesystem::path> off_limits;
};

// One file opened for a verb after the rules were checked on the file actually opened. path() is
// /proc/self/fd/N: whatever is renamed or linked afterwards, the bytes read are that file's.
// real() is the name it had when checked. Move-only; closes the file.
class CheckedFile {
 public:
  CheckedFile(CheckedFile&& other) noexcept;
  CheckedFile& operator=(CheckedFile&&) = delete;
  CheckedFile(const CheckedFile&) = delete;
  ~CheckedFile();

  const std::filesystem::path& path() const noexcept { return path_; }
  const std::filesystem::path& real() const noexcept { return real_; }
  int fd() const noexcept { return fd_; }

 private:
  friend CheckedFile open_host_file(const HostFileRules& rules, const std::string& given,
                                    std::string_view verb);
  CheckedFile(int fd, std::filesystem::path path, std::filesystem::path real)
      : fd_(fd), path_(std::move(path)), real_(std::move(real)) {}
  int fd_ = -1;
  std::filesystem::path path_;
  std::filesystem::path real_;
};

// Opens the regular file `given` for verb (its name in messages). Throws Error:
// permission_denied (no folder allowed, outside the allowed folders, inside an off-limits one:
// the message says which and how to allow one), not_found (no such file), invalid_argument (not
// a regular file).
CheckedFile open_host_file(const HostFileRules& rules, const std::string& given,
                           std::string_view verb);

// open_host_file for install; also invalid_argument when the file is not an APK (not a ZIP, or
// no AndroidManifest.xml in it).
CheckedFile open_apk(const HostFileRules& rules, const std::string& given);

// Where verb (pull) may write `given`: its folder, which must exist, resolved (links and all)
// and checked by the rules, joined with its last name. Throws Error as open_host_file, and
// invalid_argument when given names no file (empty, ".", "..", a trailing "/").
std::filesystem::path writable_host_path(const HostFileRules& rules, const std::string& given,
                                         std::string_view verb);

}  // namespace adbwire::verbs
