// Files adbwire writes on the host for itself — saved snapshots and screenshots, the session
// socket's folder, forward rules, recordings, the dumper's dex — hold what a device showed
// (messages, account names) or could be swapped to make adbwire write elsewhere. They live in
// folders only this user can use (0700), are created 0600, and are never opened through a
// symbolic link: a planted link or a folder owned by someone else is refused with an error that
// says what to do, never followed. Internal.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "base/failure.hpp"

namespace adbwire::detail {

// How strict open_private_folder is about a folder that already exists.
enum class FolderTrust {
  // adbwire's own folder: owned by this user, mode exactly 0700 (no group or other bits).
  own,
  // a folder the user named: owned by this user and not writable by group or others.
  chosen,
};

// An open folder descriptor; closes on destruction. Move-only.
class FolderFd {
 public:
  FolderFd() = default;
  explicit FolderFd(int fd) : fd_(fd) {}
  FolderFd(FolderFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FolderFd& operator=(FolderFd&& other) noexcept;
  FolderFd(const FolderFd&) = delete;
  FolderFd& operator=(const FolderFd&) = delete;
  ~FolderFd();

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Opens path as a folder, creating it (mode 0700, missing parents as mkdir -p would) when it is
// missing. The last component is opened with O_NOFOLLOW; the folder must pass `trust`.
// Errors: permission_denied (a link, not a folder, another owner, too open: the detail says
// which and what to do), io_error (cannot create or open).
FolderFd open_private_folder(const std::filesystem::path& path, FolderTrust trust,
                             Failure& failure);

// What write_private_file does with a file already named so.
enum class Existing {
  replace,  // the new content takes its name
  keep,     // a regular file stays as it is, and the write fails with busy (a path once
            // handed out keeps its content: pick another name); anything else is replaced
};

// Writes bytes to `name` in the folder atomically and privately: a temporary file created
// O_CREAT | O_EXCL | O_NOFOLLOW with mode 0600 in the same folder, renamed over name once
// complete (replacing a link named so, never writing through it). On failure nothing is left.
// Errors: io_error; busy when name exists and existing is keep.
bool write_private_file(int folder_fd, std::string_view name, std::string_view bytes,
                        Failure& failure, Existing existing = Existing::replace);

// Creates (or truncates) path for output written over time, such as a recording: mode 0600,
// O_NOFOLLOW (a link at path is refused), close-on-exec. Returns the descriptor or -1.
// Errors: permission_denied (a link at path), io_error.
int create_private_file(const std::filesystem::path& path, Failure& failure);

// The per-user runtime folder: $XDG_RUNTIME_DIR/adbwire, else /tmp/adbwire-UID, created 0700
// and checked as FolderTrust::own (whoever could write there could reach our devices).
// Errors: as open_private_folder.
std::filesystem::path private_runtime_folder(Failure& failure);
// Where private_runtime_folder is, without creating or checking it.
std::filesystem::path runtime_folder_path();

}  // namespace adbwire::detail
