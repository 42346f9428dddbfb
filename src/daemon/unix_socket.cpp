#include "daemon/unix_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/private_files.hpp"
#include "base/private_socket.hpp"

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
  const bool chosen = !env_or_empty("ADBWIRE_SESSION").empty();
  return detail::connect_private_socket(
      socket, "the adbwire daemon's socket",
      chosen ? "point ADBWIRE_SESSION at the socket of a daemon you started, or unset it"
             : "remove it if you did not put it there, or run with --no-daemon",
      failure);
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

namespace {

// After a send that took nothing (n <= 0): whether to try again (interrupted, or the socket
// takes bytes again before deadline); else why not, in failure.
bool send_may_go_on(int fd, ssize_t n, Deadline deadline, detail::Failure& failure) {
  if (n < 0 && errno == EINTR) return true;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    if (wait_ready(fd, POLLOUT, deadline)) return true;
    failure.set(errc::timeout, "the other end did not take our bytes in time");
    return false;
  }
  failure.set(errc::closed, "the other end closed the connection");
  return false;
}

}  // namespace

bool send_all(int fd, std::span<const std::uint8_t> data, Deadline deadline,
              detail::Failure& failure) {
  iovec piece{const_cast<std::uint8_t*>(data.data()), data.size()};
  return send_all(fd, std::span(&piece, 1), deadline, failure);
}

bool send_all(int fd, std::span<iovec> pieces, Deadline deadline, detail::Failure& failure) {
  while (!pieces.empty() && pieces.front().iov_len == 0) pieces = pieces.subspan(1);
  while (!pieces.empty()) {
    msghdr message{};
    message.msg_iov = pieces.data();
    message.msg_iovlen = std::min<std::size_t>(pieces.size(), IOV_MAX);
    const ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      auto sent = static_cast<std::size_t>(n);
      while (!pieces.empty() && sent >= pieces.front().iov_len) {
        sent -= pieces.front().iov_len;
        pieces = pieces.subspan(1);
      }
      if (sent > 0) {
        pieces.front().iov_base = static_cast<char*>(pieces.front().iov_base) + sent;
        pieces.front().iov_len -= sent;
      }
      continue;
    }
    if (!send_may_go_on(fd, n, deadline, failure)) return false;
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

bool send_with_descriptor(int fd, std::span<const std::uint8_t> data, int passed, Deadline deadline,
                          detail::Failure& failure) {
  if (data.empty()) {
    failure.set(errc::invalid_argument, "a descriptor needs at least one byte to travel with");
    return false;
  }
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  iovec first{const_cast<std::uint8_t*>(data.data()), 1};
  msghdr message{};
  message.msg_iov = &first;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &passed, sizeof(int));
  for (;;) {
    const ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == 1) break;
    if (!send_may_go_on(fd, n, deadline, failure)) return false;
  }
  return send_all(fd, data.subspan(1), deadline, failure);
}

long receive_with_descriptor(int fd, std::span<std::uint8_t> buffer, Deadline deadline, int& passed,
                             detail::Failure& failure) {
  for (;;) {
    alignas(cmsghdr) std::array<char, CMSG_SPACE(4 * sizeof(int))> control{};
    iovec into{buffer.data(), buffer.size()};
    msghdr message{};
    message.msg_iov = &into;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    const ssize_t n = ::recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n >= 0) {
      for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
           header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
          int received = -1;
          std::memcpy(&received, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
          if (passed >= 0) ::close(passed);
          passed = received;
        }
      }
      return static_cast<long>(n);
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLIN, deadline)) {
        failure.set(errc::timeout, "the other end said nothing in time");
        return -1;
      }
      continue;
    }
    failure.set(errc::closed, std::string("the connection broke: ") + std::strerror(errno));
    return -1;
  }
}

}  // namespace adbwire::daemon
