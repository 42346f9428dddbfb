#include "verbs/host_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"

namespace adbwire::verbs {
namespace {

namespace fs = std::filesystem;

std::string shown(const fs::path& path) { return "\"" + protocol::printable(path.string()) + "\""; }

// True when path is folder or inside it (both canonical).
bool inside(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *f) return false;
  }
  return true;
}

// The canonical form of a rule's folder; empty when it does not exist.
fs::path canonical_or_empty(const fs::path& folder) {
  std::error_code error;
  fs::path canonical = fs::canonical(folder, error);
  return error ? fs::path() : canonical;
}

// Checks a canonical path against the rules for verb; throws as open_host_file.
void check_place(const HostFileRules& rules, const fs::path& real, std::string_view verb) {
  const std::string name(verb);
  if (rules.allowed.empty()) {
    throw Error(errc::permission_denied,
                name + (name == "pull" ? " writes" : " reads") +
                    " no file of this computer unless a folder is allowed (adbwire mcp "
                    "--allow-install-from DIR; none by default): an agent that a screen can steer "
                    "must not be able to send this computer's files to a device nor write a "
                    "device's files where it likes (`adbwire " +
                    name + "`, which a person runs, takes any file)");
  }
  bool allowed = false;
  std::string folders;
  for (const fs::path& folder : rules.allowed) {
    const fs::path canonical = canonical_or_empty(folder);
    folders += (folders.empty() ? "" : ", ") + shown(folder);
    allowed = allowed || (!canonical.empty() && inside(real, canonical));
  }
  if (!allowed) {
    throw Error(errc::permission_denied, shown(real) + " is outside the folders " + name +
                                             (name == "pull" ? " may write (" : " may read (") +
                                             folders + "; --allow-install-from adds one)");
  }
  for (const fs::path& folder : rules.off_limits) {
    const fs::path canonical = canonical_or_empty(folder);
    if (!canonical.empty() && inside(real, canonical)) {
      throw Error(errc::permission_denied,
                  shown(real) + " is inside " + shown(canonical) +
                      ", which holds adbwire's keys or files; nothing there is sent to a device "
                      "or written by one");
    }
  }
}

bool has_manifest(int fd) {
  const int copy = ::dup(fd);
  if (copy < 0) return false;
  int error = 0;
  zip_t* archive = zip_fdopen(copy, ZIP_CHECKCONS, &error);
  if (archive == nullptr) {
    ::close(copy);
    return false;
  }
  const bool found = zip_name_locate(archive, "AndroidManifest.xml", 0) >= 0;
  zip_discard(archive);
  return found;
}

}  // namespace

CheckedFile::CheckedFile(CheckedFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      real_(std::move(other.real_)) {}

CheckedFile::~CheckedFile() {
  if (fd_ >= 0) ::close(fd_);
}

CheckedFile open_host_file(const HostFileRules& rules, const std::string& given,
                           std::string_view verb) {
  std::error_code error;
  const fs::path real = fs::canonical(fs::absolute(given, error), error);
  if (error) {
    throw Error(
        error == std::errc::no_such_file_or_directory ? errc::not_found : errc::permission_denied,
        "cannot read " + shown(given) + ": " + error.message());
  }
  check_place(rules, real, verb);  // before opening: nothing outside the allowed folders is touched
  const int fd = ::open(real.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    throw Error(errno == ENOENT ? errc::not_found : errc::permission_denied,
                "cannot open " + shown(real) + ": " + std::strerror(errno));
  }
  CheckedFile file(fd, "/proc/self/fd/" + std::to_string(fd), real);
  // The file opened is what counts: a link swapped in after the check above is seen here.
  const fs::path opened = fs::read_symlink(file.path(), error);
  if (error) throw Error(errc::io_error, "cannot tell which file " + shown(real) + " opened");
  check_place(rules, opened, verb);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(errc::invalid_argument, shown(opened) + " is not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return file;
}

CheckedFile open_apk(const HostFileRules& rules, const std::string& given) {
  CheckedFile apk = open_host_file(rules, given, "install");
  if (!has_manifest(apk.fd())) {
    throw Error(errc::invalid_argument,
                shown(apk.real()) + " is not an APK (a ZIP archive holding AndroidManifest.xml)");
  }
  return apk;
}

fs::path writable_host_path(const HostFileRules& rules, const std::string& given,
                            std::string_view verb) {
  const fs::path path(given);
  const fs::path name = path.filename();
  if (given.empty() || name.empty() || name == "." || name == "..") {
    throw Error(errc::invalid_argument,
                shown(given) + " names no file: give the path of the copy, e.g. DIR/name.txt");
  }
  std::error_code error;
  const fs::path folder = fs::canonical(fs::absolute(path, error).parent_path(), error);
  if (error) {
    throw Error(
        error == std::errc::no_such_file_or_directory ? errc::not_found : errc::permission_denied,
        "cannot write into the folder of " + shown(given) + ": " + error.message());
  }
  check_place(rules, folder, verb);
  const fs::path target = folder / name;
  // A link in the final place could lead outside: the copy replaces no link.
  if (fs::is_symlink(fs::symlink_status(target, error))) {
    throw Error(errc::permission_denied,
                shown(target) + " is a symbolic link; " + std::string(verb) +
                    " does not write through one (remove it or name another file)");
  }
  return target;
}

}  // namespace adbwire::verbs
