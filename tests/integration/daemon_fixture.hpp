// The daemon tests' fixture (daemon_test.cpp, daemon_transfer_test.cpp): each test's own runtime
// folder, HOME and daemon, the CLI run in them, and the daemon's socket asked directly.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "daemon/client.hpp"
#include "daemon/daemon_protocol.hpp"
#include "integration/adb_server.hpp"
#include "integration/other_user.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kWait = 30s;  // a bound for hangs, never a pause

inline unsigned mode_of(const fs::path& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_mode & 07777;
}

// A connection to the Unix socket at path, or -1.
inline int connect_unix(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The pid of the process listening at a Unix socket (SO_PEERCRED), or -1.
inline pid_t listener_pid(const fs::path& socket) {
  const int fd = connect_unix(socket);
  if (fd < 0) return -1;
  ucred credentials{};
  socklen_t size = sizeof credentials;
  const bool known = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0;
  ::close(fd);
  return known ? credentials.pid : -1;
}

// True once pid has ended (gone, or a zombie nobody reaped yet: the daemon is init's child).
inline bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'Z';
}

// Sends one smart-socket request on fd (closed after) and returns all it answers.
inline std::string answer_of(int fd, const std::string& request) {
  if (fd < 0) return "(no connection)";
  char length[5];
  std::snprintf(length, sizeof length, "%04zx", request.size());
  const std::string wire = length + request;
  std::string answer;
  if (::send(fd, wire.data(), wire.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(wire.size())) {
    char buffer[256];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
      answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

// The same on the daemon's Unix socket.
inline std::string ask(const fs::path& socket, const std::string& request) {
  return answer_of(connect_unix(socket), request);
}

inline bool wait_until(const std::function<bool()>& done, Clock::duration bound = kWait) {
  const auto deadline = Clock::now() + bound;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// Each test: its own runtime folder (so its daemon is its own), HOME, and a short idle.
class Daemon : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "home");
    fs::create_directories(runtime());
    ::chmod(runtime().c_str(), 0700);
  }
  void TearDown() override {
    for (const fs::path& socket : sockets()) {
      const pid_t pid = listener_pid(socket);
      if (pid > 0) ::kill(pid, SIGKILL);
    }
  }

  fs::path runtime() const { return dir_.path() / "run"; }
  fs::path folder() const { return runtime() / "adbwire"; }

  // The test's environment; extra entries ("NAME=value") replace its defaults. A sanitizer's
  // options reach the programs too, so their reports land where scripts/tsan collects them.
  std::vector<std::string> env(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> all = extra;
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"}) {
      if (const char* value = std::getenv(name)) all.push_back(std::string(name) + "=" + value);
    }
    for (const std::string& entry :
         {"HOME=" + (dir_.path() / "home").string(), "XDG_RUNTIME_DIR=" + runtime().string(),
          std::string("ADBWIRE_DAEMON_IDLE=60"), std::string("PATH=/usr/bin:/bin")}) {
      const std::string name = entry.substr(0, entry.find('=') + 1);
      if (std::none_of(extra.begin(), extra.end(),
                       [&](const std::string& e) { return e.starts_with(name); })) {
        all.push_back(entry);
      }
    }
    return all;
  }

  test::ProcessResult adbwire(std::vector<std::string> args,
                              const std::vector<std::string>& extra_env = {},
                              std::string_view input = {}) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(std::move(args), env(extra_env), input, kWait);
  }

  std::vector<fs::path> sockets() const {
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder(), error)) {
      if (entry.path().extension() == ".sock") found.push_back(entry.path());
    }
    return found;
  }

  // The one daemon's socket, after a call started it.
  fs::path only_socket() const {
    const std::vector<fs::path> found = sockets();
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? fs::path() : found.front();
  }

  // Kills the daemon at socket and waits until it is gone; its socket stays (a daemon killed).
  void kill_daemon(const fs::path& socket) const {
    const pid_t pid = listener_pid(socket);
    ASSERT_GT(pid, 0) << "no daemon answers at " << socket;
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    ASSERT_TRUE(wait_until([pid] { return ended(pid); }));
  }

  test::TempDir dir_;
};

}  // namespace adbwire::test
