// Where a pull writes: the destination folder, held open by descriptor, and everything below it
// created relative to that descriptor. A name from a device (already checked to be one path
// component by the plan) is only ever used with openat/mkdirat/renameat on the descriptor of
// its own folder, opened with O_NOFOLLOW, so no symbolic link inside the destination — one a
// device's earlier pull left or another local user planted — can lead a write outside it.
// Internal.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/failure.hpp"
#include "base/signal_cleanup.hpp"
#include "services/pull_plan.hpp"

namespace adbwire::detail {

// The process umask, read without changing it (from /proc/self/status; umask(2) can only be
// read by setting it, which would race other threads creating files).
mode_t current_umask() noexcept;

class LocalTree {
 public:
  LocalTree(const PullPlan& plan, std::filesystem::path destination, mode_t umask)
      : plan_(plan), destination_(std::move(destination)), umask_(umask) {}
  LocalTree(const LocalTree&) = delete;
  LocalTree& operator=(const LocalTree&) = delete;
  ~LocalTree();

  // Opens the destination folder (a link the caller named is followed: it is the caller's
  // choice). Errors: io_error.
  bool open(Failure& failure);

  // Creates every folder of the plan, parents first. A folder that exists is used as it is
  // (and later left as it is); a link or a file in its place is an io_error naming it.
  // private_until_done: created 0700, for finish_folders to set their modes later.
  bool make_folders(bool private_until_done, Failure& failure);

  // The descriptor of folder entry `folder` (kNoParent: the destination), owned by the tree.
  int folder_fd(std::uint32_t folder, Failure& failure);

  // Gives the folders this pull created the device's mode (& 0777 & ~umask) and mtime,
  // deepest first. Folders that existed before are not touched.
  bool finish_folders(Failure& failure);

  // Where entry i goes, for messages: destination/relative.
  std::string display_path(std::uint32_t i) const;
  mode_t umask() const noexcept { return umask_; }

 private:
  int open_child(int parent_fd, std::uint32_t entry, Failure& failure);

  const PullPlan& plan_;
  std::filesystem::path destination_;
  mode_t umask_;
  int root_fd_ = -1;
  // The open folders from the destination down to the last one asked for: (entry, fd).
  std::vector<std::pair<std::uint32_t, int>> chain_;
  std::vector<bool> created_;  // by entry index: this pull made the folder
};

// A pull's temporary file: ".NAME.adbwire-XXXXXX" in the folder of the final name, created
// O_EXCL | O_NOFOLLOW with mode 0600, renamed over NAME by commit() and removed otherwise.
class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  bool create(int folder_fd, const std::string& name, const std::string& display, Failure& failure);
  int fd() const noexcept { return fd_; }
  // Sets mode (already masked) and, when mtime >= 0, the times; closes; renames over the name
  // (a regular file there is swapped out atomically, then removed).
  bool commit(mode_t mode, std::int64_t mtime, Failure& failure);

 private:
  // Puts the file at the name when a regular file is there; false to rename instead.
  bool exchange_with_existing();

  int folder_fd_ = -1;
  int fd_ = -1;
  std::string temp_name_;
  std::string name_;
  std::string display_;
  SignalCleanup cleanup_;  // removes the temporary file if a signal ends the process
};

}  // namespace adbwire::detail
