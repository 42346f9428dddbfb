#include "base/private_socket.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;

// A new close-on-exec Unix socket and the address of path; -1 with failure when path is too long
// or no socket can be made.
int new_socket(const fs::path& path, sockaddr_un& address, Failure& failure) {
  address = sockaddr_un{};
  address.sun_family = AF_UNIX;
  if (path.native().size() >= sizeof address.sun_path) {
    failure.set(errc::invalid_argument,
                "the socket path " + path.string() +
                    " is too long for a Unix socket; set XDG_RUNTIME_DIR to a shorter folder");
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.native().size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    failure.set(errc::io_error, std::string("cannot make a Unix socket: ") + std::strerror(errno));
  }
  return fd;
}

void refuse(std::string_view what, const fs::path& path, const std::string& why,
            std::string_view way_out, Failure& failure) {
  failure.set(errc::permission_denied, "refusing " + std::string(what) + " " + path.string() +
                                           ": " + why +
                                           " (adbwire makes its own 0600, in a folder only you "
                                           "can enter); " +
                                           std::string(way_out));
}

}  // namespace

int connect_private_socket(const fs::path& path, std::string_view what, std::string_view way_out,
                           Failure& failure) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return -1;
  if (S_ISLNK(st.st_mode)) {
    refuse(what, path, "it is a symbolic link", way_out, failure);
    return -1;
  }
  if (!S_ISSOCK(st.st_mode)) {
    refuse(what, path, "it is not a socket", way_out, failure);
    return -1;
  }
  if (st.st_uid != ::geteuid()) {
    refuse(what, path, "it belongs to user " + std::to_string(st.st_uid), way_out, failure);
    return -1;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    refuse(what, path, std::string("its mode is ") + mode + ", open to other users", way_out,
           failure);
    return -1;
  }
  sockaddr_un address;
  const int fd = new_socket(path, address, failure);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  // The file was ours a moment ago; the process answering is what counts.
  if (const uid_t peer = socket_peer_uid(fd); peer != ::geteuid()) {
    ::close(fd);
    refuse(what, path, "the process answering there runs as user " + std::to_string(peer), way_out,
           failure);
    return -1;
  }
  return fd;
}

int listen_private_socket(const fs::path& path, int backlog, Failure& failure) {
  sockaddr_un address;
  const int fd = new_socket(path, address, failure);
  if (fd < 0) return -1;
  ::unlink(path.c_str());
  const mode_t old_mask = ::umask(077);  // born 0600: no moment when others could connect
  const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                     ::listen(fd, backlog) == 0;
  const int error = errno;
  ::umask(old_mask);
  if (!bound) {
    ::close(fd);
    failure.set(errc::io_error, "cannot listen on " + path.string() + ": " + std::strerror(error));
    return -1;
  }
  ::chmod(path.c_str(), 0600);  // a socket needs no execute bit
  return fd;
}

uid_t socket_peer_uid(int fd) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    return static_cast<uid_t>(-1);
  }
  return credentials.uid;
}

bool peer_is_this_user(int fd) { return socket_peer_uid(fd) == ::geteuid(); }

}  // namespace adbwire::detail
