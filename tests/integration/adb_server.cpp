#include "integration/adb_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace adbwire::test {

namespace fs = std::filesystem;

void set_variable(std::vector<std::string>& env, const std::string& entry) {
  const std::string name = entry.substr(0, entry.find('=') + 1);
  std::erase_if(env, [&](const std::string& existing) { return existing.starts_with(name); });
  env.push_back(entry);
}
using namespace std::chrono_literals;

constexpr auto kOnlineTimeout = 20s;

std::string find_adb() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / "adb";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

std::vector<std::string> with_test_runtime(std::vector<std::string> env) {
  for (const char* name : {"XDG_RUNTIME_DIR", "HOME"}) {
    const std::string prefix = std::string(name) + "=";
    const char* value = std::getenv(name);
    const bool named = std::any_of(env.begin(), env.end(), [&](const std::string& entry) {
      return entry.starts_with(prefix);
    });
    if (value != nullptr && !named) env.push_back(prefix + value);
  }
  return env;
}

Background::Background(std::vector<std::string> argv, std::vector<std::string> env) {
  env = with_test_runtime(std::move(env));
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe[1], 2);
  auto args = c_strings(argv);
  auto envp = c_strings(env);
  const int spawned =
      ::posix_spawn(&pid_, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe[1]);
  out_ = pipe[0];
  if (spawned != 0) {
    ADD_FAILURE() << "cannot run " << argv[0] << ": " << std::strerror(spawned);
    pid_ = -1;
  }
}

Background::~Background() {
  if (pid_ > 0 && exit_code(std::chrono::milliseconds(0)) == kRunning) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) ::close(out_);
}

std::string Background::first_line() {
  const std::string seen = read_until("\n", std::chrono::seconds(10));
  return seen.substr(0, seen.find('\n'));
}

std::string Background::read_until(std::string_view needle, std::chrono::milliseconds wait) {
  std::string seen = std::move(unread_);
  unread_.clear();
  const auto give_up = std::chrono::steady_clock::now() + wait;
  while (seen.find(needle) == std::string::npos && std::chrono::steady_clock::now() < give_up) {
    pollfd fd{out_, POLLIN, 0};
    if (::poll(&fd, 1, 50) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(out_, buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t at = seen.find(needle);
  if (at == std::string::npos) return seen;
  unread_ = seen.substr(at + needle.size());
  seen.resize(at + needle.size());
  return seen;
}

void Background::close_output() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

int Background::exit_code(std::chrono::milliseconds wait) {
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (std::chrono::steady_clock::now() >= give_up) return kRunning;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

ProcessResult run_process(std::vector<std::string> argv, std::vector<std::string> env,
                          std::string_view input, std::chrono::steady_clock::duration timeout) {
  env = with_test_runtime(std::move(env));
  ProcessResult result;
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  auto args = c_strings(argv);
  auto envp = c_strings(env);
  pid_t pid = 0;
  int spawned = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (spawned != 0) {
    ADD_FAILURE() << "cannot run " << argv[0] << ": " << std::strerror(spawned);
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    return result;
  }
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);
  std::size_t written = 0;
  if (input.empty()) {
    ::close(in[1]);
    in[1] = -1;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true;
  char buffer[65536];
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3] = {{out_open ? out[0] : -1, POLLIN, 0},
                     {err_open ? err[0] : -1, POLLIN, 0},
                     {in[1], POLLOUT, 0}};
    ::poll(fds, 3, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else {
        (i == 0 ? out_open : err_open) = false;
      }
    }
    if (in[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(in[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == input.size()) {
        ::close(in[1]);
        in[1] = -1;
      }
    }
  }
  if (in[1] >= 0) ::close(in[1]);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.max_rss_kib = usage.ru_maxrss;
  return result;
}

std::uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

int connect_loopback(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int listen_loopback(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(address.sin_port);
  return fd;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

AdbServerProcess::~AdbServerProcess() {
  if (pid_ > 0) {
    run_process({adb_, "-P", std::to_string(port_), "kill-server"}, env_, {}, 10s);
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(50ms);
    }
  }
  std::error_code ignored;
  if (!temp_.empty()) fs::remove_all(temp_, ignored);
}

std::string AdbServerProcess::start() {
  adb_ = find_adb();
  if (adb_.empty())
    return "the adb program is needed: install Debian package adb (apt-get install adb)";
  std::string pattern = (fs::temp_directory_path() / "adbwire-adb-server-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return "mkdtemp: " + std::string(std::strerror(errno));
  temp_ = pattern;
  fs::create_directories(temp_ / "home");
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry = *e;
    if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_") || entry.starts_with("ADB_"))
      continue;
    env_.emplace_back(entry);
  }
  env_.push_back("HOME=" + (temp_ / "home").string());
  env_.push_back("ADB_MDNS=0");
  port_ = free_port();

  std::vector<std::string> argv = {adb_, "-P", std::to_string(port_), "nodaemon", "server"};
  std::string log = (temp_ / "adb-server.log").string();
  auto args = c_strings(argv);
  auto envp = c_strings(env_);
  // fork + PR_SET_PDEATHSIG rather than posix_spawn: if the test process dies (a sanitizer
  // abort, a crash) before its teardown, the kernel still stops the private server.
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    if (log_fd >= 0) ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    return "cannot open " + log + " or /dev/null: " + std::strerror(errno);
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(null_fd, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execve(adb_.c_str(), args.data(), envp.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(log_fd);
  ::close(null_fd);
  if (pid_ < 0) {
    pid_ = -1;
    return "cannot start " + adb_ + ": " + std::strerror(fork_errno);
  }
  // Client commands would start a daemon of their own if ours were not listening yet.
  auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
  for (;;) {
    int fd = connect_loopback(port_);
    if (fd >= 0) {
      ::close(fd);
      return {};
    }
    if (std::chrono::steady_clock::now() > deadline)
      return "adb server did not listen on port " + std::to_string(port_) + "; its log:\n" +
             read_file(log);
    std::this_thread::sleep_for(50ms);
  }
}

ProcessResult AdbServerProcess::adb(std::vector<std::string> args, std::string_view input) const {
  args.insert(args.begin(), {adb_, "-P", std::to_string(port_)});
  auto result = run_process(std::move(args), env_, input);
  EXPECT_FALSE(result.timed_out) << "adb did not finish in time";
  return result;
}

std::string AdbServerProcess::connect_and_wait(const std::string& serial) const {
  adb({"connect", serial});
  auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
  for (;;) {
    auto state = adb({"-s", serial, "get-state"});
    if (state.out == "device\n") return {};
    if (std::chrono::steady_clock::now() > deadline)
      return "device never came online; last get-state: " + state.out + state.err;
    std::this_thread::sleep_for(100ms);
  }
}

}  // namespace adbwire::test
