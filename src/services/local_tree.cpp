#include "services/local_tree.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::detail {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

std::string shown(const std::string& path) { return protocol::printable(path, 600); }

// Temporary names keep at most this much of the final name, so they stay under NAME_MAX.
constexpr std::size_t kTempNamePrefix = 200;

}  // namespace

mode_t current_umask() noexcept {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
    }
  }
  // Kernels before 4.7 do not say; read it the racy way.
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

LocalTree::~LocalTree() {
  for (const auto& [entry, fd] : chain_) ::close(fd);
  if (root_fd_ >= 0) ::close(root_fd_);
}

bool LocalTree::open(Failure& failure) {
  root_fd_ = ::open(destination_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) {
    failure.set(errc::io_error,
                "cannot open folder " + shown(destination_.string()) + ": " + errno_text(errno));
    return false;
  }
  created_.assign(plan_.entries().size(), false);
  return true;
}

std::string LocalTree::display_path(std::uint32_t i) const {
  const std::string relative = plan_.local_path(i);
  return (relative.empty() ? destination_ : destination_ / relative).string();
}

int LocalTree::open_child(int parent_fd, std::uint32_t entry, Failure& failure) {
  const int fd = ::openat(parent_fd, plan_.entries()[entry].name.c_str(),
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int error = errno;
  struct stat st {};
  const bool is_link =
      ::fstatat(parent_fd, plan_.entries()[entry].name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode);
  failure.set(errc::io_error,
              is_link
                  ? shown(display_path(entry)) +
                        " is a symbolic link; adbwire does not write through links inside the "
                        "destination (remove it, or pull into an empty folder)"
                  : "cannot open folder " + shown(display_path(entry)) + ": " + errno_text(error));
  return -1;
}

int LocalTree::folder_fd(std::uint32_t folder, Failure& failure) {
  if (folder == kNoParent) return root_fd_;
  const auto& entries = plan_.entries();
  // The folders from the destination down to `folder`; a root with an empty name is the
  // destination itself.
  std::vector<std::uint32_t> path;
  for (std::uint32_t at = folder; at != kNoParent; at = entries[at].parent) {
    if (!entries[at].name.empty()) path.push_back(at);
  }
  if (path.empty()) return root_fd_;
  std::size_t common = 0;
  while (common < chain_.size() && common < path.size() &&
         chain_[common].first == path[path.size() - 1 - common]) {
    ++common;
  }
  while (chain_.size() > common) {
    ::close(chain_.back().second);
    chain_.pop_back();
  }
  for (std::size_t k = common; k < path.size(); ++k) {
    const int parent = chain_.empty() ? root_fd_ : chain_.back().second;
    const std::uint32_t entry = path[path.size() - 1 - k];
    const int fd = open_child(parent, entry, failure);
    if (fd < 0) return -1;
    chain_.emplace_back(entry, fd);
  }
  return chain_.back().second;
}

bool LocalTree::make_folders(bool private_until_done, Failure& failure) {
  const auto& entries = plan_.entries();
  for (std::uint32_t i = 0; i < entries.size(); ++i) {
    if (entries[i].kind != PlanKind::folder || entries[i].name.empty()) continue;
    const int parent = folder_fd(entries[i].parent, failure);
    if (parent < 0) return false;
    if (::mkdirat(parent, entries[i].name.c_str(), private_until_done ? 0700 : 0777) == 0) {
      created_[i] = true;
    } else if (errno != EEXIST) {
      failure.set(errc::io_error,
                  "cannot create folder " + shown(display_path(i)) + ": " + errno_text(errno));
      return false;
    }
    // Whether made now or found, it must be a real folder: a link there is refused.
    if (folder_fd(i, failure) < 0) return false;
  }
  return true;
}

bool LocalTree::finish_folders(Failure& failure) {
  const auto& entries = plan_.entries();
  for (auto i = static_cast<std::uint32_t>(entries.size()); i-- > 0;) {
    if (!created_[i]) continue;
    const int fd = folder_fd(i, failure);
    if (fd < 0) return false;
    const timespec times[2] = {{static_cast<time_t>(entries[i].mtime), 0},
                               {static_cast<time_t>(entries[i].mtime), 0}};
    if (::fchmod(fd, static_cast<mode_t>(entries[i].mode & 0777 & ~umask_)) != 0 ||
        ::futimens(fd, times) != 0) {
      failure.set(errc::io_error, "cannot set the mode or time of " + shown(display_path(i)) +
                                      ": " + errno_text(errno));
      return false;
    }
  }
  return true;
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_name_.empty()) ::unlinkat(folder_fd_, temp_name_.c_str(), 0);
  cleanup_.release();
}

bool TempFile::create(int folder_fd, const std::string& name, const std::string& display,
                      Failure& failure) {
  folder_fd_ = folder_fd;
  name_ = name;
  display_ = display;
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temp = "." + name.substr(0, kTempNamePrefix) + ".adbwire-";
    for (int k = 0; k < 6; ++k) temp += kLetters[random() % (sizeof kLetters - 1)];
    fd_ = ::openat(folder_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0600);
    if (fd_ >= 0) {
      temp_name_ = std::move(temp);
      cleanup_ = SignalCleanup(folder_fd, temp_name_);
      return true;
    }
    if (errno != EEXIST) break;
  }
  failure.set(errc::io_error,
              "cannot create a temporary file beside " + shown(display) + ": " + errno_text(errno));
  return false;
}

// ext4 (by default, auto_da_alloc) starts writing the whole new file out inside a rename that
// replaces a file, on the caller's time: about 40 ms per 128 MiB here. Swapping the two names
// atomically and removing the old file's costs what adb's unlink-then-create does, and the name
// never stops naming one whole file. Only over a regular file: renameat replaces a link named
// like the file (never what it points to) and refuses a folder; so does the fallback.
bool TempFile::exchange_with_existing() {
  struct stat there {};
  if (::fstatat(folder_fd_, name_.c_str(), &there, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(there.st_mode)) {
    return false;
  }
  if (::renameat2(folder_fd_, temp_name_.c_str(), folder_fd_, name_.c_str(), RENAME_EXCHANGE) !=
      0) {
    return false;  // a file system without it, or the name changed meanwhile
  }
  if (::unlinkat(folder_fd_, temp_name_.c_str(), 0) == 0) return true;
  // Something other than a file took the name meanwhile: put it back, then rename over it.
  ::renameat2(folder_fd_, temp_name_.c_str(), folder_fd_, name_.c_str(), RENAME_EXCHANGE);
  return false;
}

bool TempFile::commit(mode_t mode, std::int64_t mtime, Failure& failure) {
  bool ok = ::fchmod(fd_, mode) == 0;
  if (ok && mtime >= 0) {
    const timespec times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    ok = ::futimens(fd_, times) == 0;
  }
  const int error = errno;
  const int fd = std::exchange(fd_, -1);
  if (!ok || ::close(fd) != 0) {
    failure.set(errc::io_error,
                "writing " + shown(display_) + ": " + errno_text(ok ? errno : error));
    return false;
  }
  if (!exchange_with_existing() &&
      ::renameat(folder_fd_, temp_name_.c_str(), folder_fd_, name_.c_str()) != 0) {
    failure.set(errc::io_error,
                "cannot put the pulled file at " + shown(display_) + ": " + errno_text(errno));
    return false;
  }
  temp_name_.clear();
  cleanup_.release();
  return true;
}

}  // namespace adbwire::detail
