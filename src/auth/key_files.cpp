#include "auth/key_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "adbwire/error.hpp"

namespace adbwire::auth {
namespace {

// Closes a descriptor on every path out of a function.
class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }
  // Closes now so that a failing close (a delayed write error) can be reported.
  int close() noexcept {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string temp_name_suffix() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char text[32];
  std::snprintf(text, sizeof text, ".tmp-%d-%08llx", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(random() & 0xffffffffULL));
  return text;
}

}  // namespace

std::error_code error_from_errno(int err) noexcept {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return make_error_code(errc::not_found);
    case EACCES:
    case EPERM:
    case EROFS:
      return make_error_code(errc::permission_denied);
    default:
      return make_error_code(errc::io_error);
  }
}

void set_errno_status(Status& status, int err, std::string_view what,
                      const std::filesystem::path& path) {
  status.code = error_from_errno(err);
  status.detail = std::string(what) + " " + path.string() + ": " + std::strerror(err);
}

std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_size,
                                           Status& status) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    set_errno_status(status, errno, "cannot open", path);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    set_errno_status(status, errno, "cannot stat", path);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    status.code = make_error_code(errc::io_error);
    status.detail = path.string() + " is not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_size) {
    status.code = make_error_code(errc::parse_error);
    status.detail = path.string() + " is " + std::to_string(st.st_size) +
                    " bytes, too large to be a key file (at most " + std::to_string(max_size) + ")";
    return std::nullopt;
  }
  std::string contents;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      set_errno_status(status, errno, "cannot read", path);
      return std::nullopt;
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<std::size_t>(n));
    if (contents.size() > max_size) {
      status.code = make_error_code(errc::parse_error);
      status.detail = path.string() + " grew past " + std::to_string(max_size) +
                      " bytes while being read; it is not a key file";
      return std::nullopt;
    }
  }
  return contents;
}

std::optional<PendingFile> PendingFile::write(const std::filesystem::path& final_path,
                                              std::string_view contents, mode_t mode,
                                              bool exact_mode, Status& status) {
  std::filesystem::path temp_path;
  int raw_fd = -1;
  // O_EXCL with a random name instead of mkstemp(): mkstemp forces mode 0600, while the
  // .pub file must get the umask-filtered mode that adb gives it.
  for (int attempt = 0; attempt < 16 && raw_fd < 0; ++attempt) {
    temp_path = final_path;
    temp_path += temp_name_suffix();
    raw_fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (raw_fd < 0 && errno != EEXIST) break;
  }
  if (raw_fd < 0) {
    set_errno_status(status, errno, "cannot create a temporary file for", final_path);
    return std::nullopt;
  }
  PendingFile pending(temp_path, final_path);
  Fd fd(raw_fd);
  if (exact_mode && ::fchmod(fd.get(), mode) != 0) {
    set_errno_status(status, errno, "cannot set the mode of", temp_path);
    return std::nullopt;
  }
  if (!write_all(fd.get(), contents) || ::fsync(fd.get()) != 0 || fd.close() != 0) {
    set_errno_status(status, errno, "cannot write", temp_path);
    return std::nullopt;
  }
  return pending;
}

bool PendingFile::commit(Status& status) {
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    set_errno_status(status, errno, "cannot rename a temporary file onto", final_path_);
    return false;
  }
  temp_path_.clear();
  return true;
}

PendingFile::PendingFile(std::filesystem::path temp_path, std::filesystem::path final_path)
    : temp_path_(std::move(temp_path)), final_path_(std::move(final_path)) {}

PendingFile::PendingFile(PendingFile&& other) noexcept
    : temp_path_(std::move(other.temp_path_)), final_path_(std::move(other.final_path_)) {
  other.temp_path_.clear();
}

PendingFile::~PendingFile() {
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

}  // namespace adbwire::auth
