// Another local user for the tests that check adbwire never trusts what is theirs: a Unix socket
// made and served by user nobody, which records every byte a client sends it. The tests run as
// root (CI does), which is what lets them become nobody.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace adbwire::test {

inline constexpr uid_t kNobody = 65534;

inline sockaddr_un unix_address(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  return address;
}

// parent/open, a folder user nobody may enter and write in (parent made enterable too).
inline std::filesystem::path folder_open_to_nobody(const std::filesystem::path& parent) {
  const std::filesystem::path open = parent / "open";
  std::filesystem::create_directories(open);
  ::chmod(parent.c_str(), 0755);
  ::chmod(open.c_str(), 0777);
  return open;
}

// Becomes user nobody in a forked child; exits the child when it cannot.
inline void become_nobody() {
  if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(2);
}

// Listens at `path` as user nobody (its folder must let nobody in and write), accepting every
// client and keeping what each sends, until the object goes. Forked before any thread of the
// test starts work it could leave half done in the child.
class NobodysSocket {
 public:
  explicit NobodysSocket(const std::filesystem::path& path) {
    int ready[2];
    if (::pipe2(ready, O_CLOEXEC) != 0 || ::pipe2(end_, O_CLOEXEC) != 0 ||
        ::pipe2(heard_, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe: " << std::strerror(errno);
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(end_[1]);
      ::close(heard_[0]);
      become_nobody();
      const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      const sockaddr_un address = unix_address(path);
      if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
          ::listen(fd, 8) != 0) {
        ::_exit(3);
      }
      [[maybe_unused]] const ssize_t said = ::write(ready[1], "r", 1);
      // Serve clients until the test closes end_: whatever they send goes to heard_.
      for (;;) {
        pollfd p[2] = {{fd, POLLIN, 0}, {end_[0], POLLIN, 0}};
        if (::poll(p, 2, -1) < 0 || p[1].revents != 0) ::_exit(0);
        const int client = ::accept(fd, nullptr, nullptr);
        if (client < 0) continue;
        char buffer[4096];
        for (ssize_t n; (n = ::recv(client, buffer, sizeof buffer, 0)) > 0;) {
          [[maybe_unused]] const ssize_t kept = ::write(heard_[1], buffer, n);
        }
        ::close(client);
      }
    }
    ::close(ready[1]);
    ::close(end_[0]);
    ::close(heard_[1]);
    char byte = 0;
    listening_ = ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
  }
  ~NobodysSocket() { heard(); }

  // True once nobody listens at the path.
  bool listening() const { return listening_; }

  // Ends the process and returns every byte clients sent it.
  std::string heard() {
    if (pid_ <= 0) return heard_text_;
    ::close(end_[1]);
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    char buffer[4096];
    for (ssize_t n; (n = ::read(heard_[0], buffer, sizeof buffer)) > 0;)
      heard_text_.append(buffer, static_cast<std::size_t>(n));
    ::close(heard_[0]);
    return heard_text_;
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int end_[2] = {-1, -1};
  int heard_[2] = {-1, -1};
  bool listening_ = false;
  std::string heard_text_;
};

// Connects to the Unix socket at path as user nobody, sends request and returns what came back
// until the other side closed ("refused: …" when the connection itself failed).
inline std::string ask_as_nobody(const std::filesystem::path& path, const std::string& request) {
  int answer[2];
  if (::pipe2(answer, O_CLOEXEC) != 0) return "refused: pipe";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(answer[0]);
    become_nobody();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un address = unix_address(path);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      const std::string why = std::string("refused: ") + std::strerror(errno);
      [[maybe_unused]] const ssize_t said = ::write(answer[1], why.data(), why.size());
      ::_exit(0);
    }
    [[maybe_unused]] const ssize_t sent = ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      [[maybe_unused]] const ssize_t kept = ::write(answer[1], buffer, n);
    }
    ::_exit(0);
  }
  ::close(answer[1]);
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = ::read(answer[0], buffer, sizeof buffer)) > 0;)
    got.append(buffer, static_cast<std::size_t>(n));
  ::close(answer[0]);
  ::waitpid(pid, nullptr, 0);
  return got;
}

}  // namespace adbwire::test
