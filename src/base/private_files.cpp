#include "base/private_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;

std::string errno_text(int error) { return std::strerror(error); }

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

FolderFd& FolderFd::operator=(FolderFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FolderFd::~FolderFd() {
  if (fd_ >= 0) ::close(fd_);
}

FolderFd open_private_folder(const fs::path& path, FolderTrust trust, Failure& failure) {
  const std::string shown = path.string();
  if (path.has_parent_path()) {
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    failure.set(errc::io_error, "cannot create folder " + shown + ": " + errno_text(errno));
    return {};
  }
  FolderFd folder(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!folder) {
    const int error = errno;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      failure.set(errc::permission_denied,
                  shown +
                      " is a symbolic link, which adbwire does not follow for its own files; "
                      "remove it (someone may have planted it) or choose another folder");
    } else if (error == ENOTDIR) {
      failure.set(errc::permission_denied, shown + " is not a folder; remove it or choose another");
    } else {
      failure.set(errc::io_error, "cannot open folder " + shown + ": " + errno_text(error));
    }
    return {};
  }
  struct stat st {};
  if (::fstat(folder.get(), &st) != 0) {
    failure.set(errc::io_error, "cannot stat folder " + shown + ": " + errno_text(errno));
    return {};
  }
  if (st.st_uid != ::geteuid()) {
    failure.set(errc::permission_denied,
                shown + " belongs to another user (uid " + std::to_string(st.st_uid) +
                    "); adbwire keeps its files only in folders of yours: remove it or choose "
                    "another folder");
    return {};
  }
  const mode_t too_open = trust == FolderTrust::own ? 077 : 022;
  if ((st.st_mode & too_open) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    failure.set(errc::permission_denied,
                shown + " has mode " + mode +
                    (trust == FolderTrust::own
                         ? "; adbwire's own folder must have mode 0700 (chmod 700 it, or remove it)"
                         : "; others may write there: chmod go-w it, or choose another folder"));
    return {};
  }
  return folder;
}

bool write_private_file(int folder_fd, std::string_view name, std::string_view bytes,
                        Failure& failure, Existing existing) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::string final_name(name);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = "." + final_name + ".tmp-";
    for (int k = 0; k < 6; ++k) temp += kLetters[random() % (sizeof kLetters - 1)];
    fd = ::openat(folder_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    failure.set(errc::io_error, "cannot create " + final_name + ": " + errno_text(errno));
    return false;
  }
  const bool written = write_all(fd, bytes);
  const int write_error = errno;
  if (::close(fd) != 0 || !written) {
    const int error = written ? errno : write_error;
    ::unlinkat(folder_fd, temp.c_str(), 0);
    failure.set(errc::io_error, "cannot write " + final_name + ": " + errno_text(error));
    return false;
  }
  if (existing == Existing::keep) {
    // A hard link fails on a name that exists, where a rename would replace it. What is kept is
    // a file someone wrote; anything else there (a planted link) is replaced below.
    if (::linkat(folder_fd, temp.c_str(), folder_fd, final_name.c_str(), 0) == 0) {
      ::unlinkat(folder_fd, temp.c_str(), 0);
      return true;
    }
    const int error = errno;
    struct stat there {};
    if (error != EEXIST ||
        (::fstatat(folder_fd, final_name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(there.st_mode))) {
      ::unlinkat(folder_fd, temp.c_str(), 0);
      failure.set(error == EEXIST ? errc::busy : errc::io_error,
                  "cannot write " + final_name + ": " + errno_text(error));
      return false;
    }
  }
  if (::renameat(folder_fd, temp.c_str(), folder_fd, final_name.c_str()) != 0) {
    const int error = errno;
    ::unlinkat(folder_fd, temp.c_str(), 0);
    failure.set(errc::io_error, "cannot write " + final_name + ": " + errno_text(error));
    return false;
  }
  return true;
}

int create_private_file(const fs::path& path, Failure& failure) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno == ELOOP) {
    failure.set(errc::permission_denied,
                path.string() +
                    " is a symbolic link; adbwire does not write through one: remove "
                    "it or choose another name");
  } else {
    failure.set(errc::io_error, "cannot create " + path.string() + ": " + errno_text(errno));
  }
  return -1;
}

fs::path runtime_folder_path() {
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != 0) {
    return fs::path(runtime) / "adbwire";
  }
  std::error_code error;
  fs::path temp = fs::temp_directory_path(error);
  if (error) temp = "/tmp";
  return temp / ("adbwire-" + std::to_string(::geteuid()));
}

fs::path private_runtime_folder(Failure& failure) {
  const fs::path folder = runtime_folder_path();
  if (!open_private_folder(folder, FolderTrust::own, failure)) {
    failure.detail +=
        "; this is adbwire's runtime folder, and another user may have made it first: set "
        "XDG_RUNTIME_DIR to a folder only you can enter";
    return {};
  }
  return folder;
}

}  // namespace adbwire::detail
