#include "daemon/unix_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/private_files.hpp"

namespace adbwire::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// FNV-1a, 64 bits: the identity is short and the folder is private, so the name needs to be
// distinct, not secret.
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<std::uint8_t>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// Milliseconds poll() may wait for deadline: -1 for none, rounded up so a wait never ends early.
int poll_timeout(Deadline deadline) {
  if (deadline == kNoDeadline) return -1;
  const auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return ms > 1000000 ? 1000000 : static_cast<int>(ms);
}

bool fill_address(const fs::path& path, sockaddr_un& address, detail::Failure& failure) {
  address = sockaddr_un{};
  address.sun_family = AF_UNIX;
  if (path.native().size() >= sizeof address.sun_path) {
    failure.set(errc::invalid_argument,
                "the adbwire daemon's socket path " + path.string() +
                    " is too long for a Unix socket; set XDG_RUNTIME_DIR to a shorter folder");
    return false;
  }
  std::memcpy(address.sun_path, path.c_str(), path.native().size() + 1);
  return true;
}

void refuse(const fs::path& path, std::string_view why, detail::Failure& failure) {
  failure.set(errc::permission_denied,
              "refusing the adbwire daemon's socket " + path.string() + ": " + std::string(why) +
                  "; remove it if you did not put it there (adbwire makes its own, 0600 in a "
                  "0700 folder), or run with --no-daemon");
}

}  // namespace

std::string daemon_identity(const fs::path& program) {
  struct stat st {};
  std::string build = "adbwire " ADBWIRE_VERSION;
  if (::stat(program.c_str(), &st) == 0) {
    build += " " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
             std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }
  return build + "\nhome=" + env_or_empty("HOME") +
         "\nvendor_keys=" + env_or_empty("ADB_VENDOR_KEYS");
}

DaemonPaths daemon_paths(std::string_view identity, detail::Failure& failure) {
  if (const std::string chosen = env_or_empty("ADBWIRE_SESSION"); !chosen.empty())
    return {chosen, chosen + ".lock"};
  const fs::path runtime = detail::private_runtime_folder(failure);
  if (failure) {
    if (failure.code == errc::permission_denied) {
      failure.detail +=
          "; or set XDG_RUNTIME_DIR to a folder only you can use, or run with "
          "--no-daemon (each command then connects by itself)";
    }
    return {};
  }
  char name[24];
  std::snprintf(name, sizeof name, "server-%016llx",
                static_cast<unsigned long long>(fnv1a(identity)));
  return {runtime / (std::string(name) + ".sock"), runtime / (std::string(name) + ".lock")};
}

int connect_daemon(const fs::path& socket, detail::Failure& failure) {
  struct stat st {};
  if (::lstat(socket.c_str(), &st) != 0) return -1;
  if (S_ISLNK(st.st_mode)) {
    refuse(socket, "it is a symbolic link", failure);
    return -1;
  }
  if (!S_ISSOCK(st.st_mode)) {
    refuse(socket, "it is not a socket", failure);
    return -1;
  }
  if (st.st_uid != ::geteuid()) {
    refuse(socket, "it belongs to user " + std::to_string(st.st_uid), failure);
    return -1;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    refuse(socket, std::string("its mode is ") + mode + ", open to other users", failure);
    return -1;
  }
  sockaddr_un address;
  if (!fill_address(socket, address, failure)) return -1;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    failure.set(errc::io_error, std::string("cannot make a Unix socket: ") + std::strerror(errno));
    return -1;
  }
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  if (const uid_t peer = peer_uid(fd); peer != ::geteuid()) {
    ::close(fd);
    refuse(socket, "the process answering there runs as user " + std::to_string(peer), failure);
    return -1;
  }
  return fd;
}

int lock_file(const fs::path& path, Deadline deadline, detail::Failure& failure) {
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      failure.set(
          errno == ELOOP ? errc::permission_denied : errc::io_error,
          "cannot open the adbwire daemon's lock " + path.string() + ": " + std::strerror(errno));
      return -1;
    }
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        failure.set(errc::io_error, "cannot lock " + path.string() + ": " + std::strerror(errno));
        ::close(fd);
        return -1;
      }
      if (Clock::now() >= deadline) {
        failure.set(errc::timeout, "another adbwire kept " + path.string() +
                                       " locked while starting the adbwire daemon");
        ::close(fd);
        return -1;
      }
      std::this_thread::sleep_for(2ms);
    }
    // Whoever held it may have removed the file before letting go (unlock_and_remove): a lock on
    // a file no longer at path locks nothing, so take the one there now.
    struct stat held {};
    struct stat there {};
    if (::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &there) == 0 &&
        held.st_dev == there.st_dev && held.st_ino == there.st_ino) {
      return fd;
    }
    ::close(fd);
  }
}

void unlock_and_remove(const fs::path& path, int fd) {
  ::unlink(path.c_str());
  ::close(fd);
}

int listen_at(const fs::path& path, detail::Failure& failure) {
  sockaddr_un address;
  if (!fill_address(path, address, failure)) return -1;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    failure.set(errc::io_error, std::string("cannot make a Unix socket: ") + std::strerror(errno));
    return -1;
  }
  ::unlink(path.c_str());
  const mode_t old_mask = ::umask(077);  // born 0600: no moment when others could connect
  const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                     ::listen(fd, 64) == 0;
  const int error = errno;
  ::umask(old_mask);
  if (bound) ::chmod(path.c_str(), 0600);  // a socket needs no execute bit
  if (!bound) {
    ::close(fd);
    failure.set(errc::io_error, "cannot listen on " + path.string() + ": " + std::strerror(error));
    return -1;
  }
  return fd;
}

uid_t peer_uid(int fd) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    return static_cast<uid_t>(-1);
  }
  return credentials.uid;
}

bool wait_ready(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, poll_timeout(deadline));
    if (ready > 0) return true;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && Clock::now() < deadline) continue;  // poll rounds to milliseconds
    return false;
  }
}

bool send_all(int fd, std::span<const std::uint8_t> data, Deadline deadline,
              detail::Failure& failure) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data = data.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd, POLLOUT, deadline)) {
        failure.set(errc::timeout, "the other end did not take our bytes in time");
        return false;
      }
      continue;
    }
    failure.set(errc::closed, "the other end closed the connection");
    return false;
  }
  return true;
}

long receive_some(int fd, std::span<std::uint8_t> buffer, Deadline deadline,
                  detail::Failure& failure) {
  bool socket = true;
  for (;;) {
    // A socket is read without blocking, then waited on; the daemon's ready pipe is waited on
    // first, then read.
    const ssize_t n = socket ? ::recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT)
                             : ::read(fd, buffer.data(), buffer.size());
    if (n >= 0) return static_cast<long>(n);
    if (errno == EINTR) continue;
    if (errno == ENOTSOCK) socket = false;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTSOCK) {
      if (!wait_ready(fd, POLLIN, deadline)) {
        failure.set(errc::timeout, "the adbwire daemon did not answer in time");
        return -1;
      }
      continue;
    }
    failure.set(errc::closed,
                std::string("the connection to the adbwire daemon broke: ") + std::strerror(errno));
    return -1;
  }
}

}  // namespace adbwire::daemon
