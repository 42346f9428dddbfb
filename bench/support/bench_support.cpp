#include "bench_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ip/tcp.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"

extern char** environ;

namespace adbwire::bench {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double median_ms(std::vector<double> samples) { return median(std::move(samples)); }

std::vector<double> time_each(int n, const std::function<void()>& op) {
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    op();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return samples;
}

Sample in_child(const std::function<bool()>& body) {
  Sample sample;
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = body();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "bench child: %s\n", error.what());
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return sample;
  sample.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  sample.max_rss_kib = usage.ru_maxrss;
  sample.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return sample;
}

Sample spawn_measured(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  return in_child([&] {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (const std::string& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execve(argv[0].c_str(), args.data(), envp.data());
    return false;
  });
}

pid_t spawn_quiet(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return spawned == 0 ? pid : -1;
}

std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

PrivateAdb::PrivateAdb() : port_(free_port()) {
  if (access(kAdb, X_OK) != 0)
    throw std::runtime_error(std::string(kAdb) + " not found: install it (apt-get install adb)");
  std::random_device random;
  home_ = std::filesystem::temp_directory_path() / ("adbwire-bench-" + std::to_string(random()));
  std::filesystem::create_directories(home_);
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string entry = *variable;
    if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_") || entry.starts_with("ADB_"))
      continue;
    environment_.push_back(entry);
  }
  environment_.push_back("HOME=" + home_.string());
  environment_.push_back("ADB_MDNS=0");
  server_pid_ =
      spawn_quiet({kAdb, "-P", std::to_string(port_), "nodaemon", "server"}, environment_);
  if (server_pid_ < 0) throw std::runtime_error("cannot start the private adb server");
  // The server needs a moment to listen; host:version answers once it does.
  const AdbServer server({"127.0.0.1", port_});
  for (int i = 0;; ++i) {
    std::error_code error;
    server.version(kDefaultDeadline, error);
    if (!error) break;
    if (i == 100)
      throw std::runtime_error("the private adb server never listened: " + error.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

PrivateAdb::~PrivateAdb() {
  if (server_pid_ > 0) {
    kill(server_pid_, SIGTERM);
    waitpid(server_pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(home_, ignored);
}

int PrivateAdb::run(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {kAdb, "-P", std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = spawn_quiet(argv, environment_);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void PrivateAdb::connect_device(std::uint16_t device_port) const {
  const std::string serial = "127.0.0.1:" + std::to_string(device_port);
  const AdbServer server({"127.0.0.1", port_});
  server.connect("127.0.0.1", device_port);
  server.wait_for(serial, WaitState::device);
}

namespace {

// Closes every descriptor above stderr except a and b.
void keep_only_descriptors(int a, int b) {
  const unsigned low = static_cast<unsigned>(std::min(a, b));
  const unsigned high = static_cast<unsigned>(std::max(a, b));
  if (low > 3) ::close_range(3, low - 1, 0);
  if (high > low + 1) ::close_range(low + 1, high - 1, 0);
  ::close_range(high + 1, ~0U, 0);
}

}  // namespace

ForkedVirtualDevice::ForkedVirtualDevice(const std::filesystem::path& root,
                                         std::string_view profile, bool delayed_ack) {
  int port_pipe[2];
  int stop_fds[2];
  // Close-on-exec: an adb server or node spawned later must not hold the stop pipe open.
  if (::pipe2(port_pipe, O_CLOEXEC) != 0)
    throw Error(errc::io_error, "cannot make a pipe for the virtual device");
  if (::pipe2(stop_fds, O_CLOEXEC) != 0) {
    ::close(port_pipe[0]);
    ::close(port_pipe[1]);
    throw Error(errc::io_error, "cannot make a pipe for the virtual device");
  }
  pid_ = ::fork();
  if (pid_ == 0) {
    // Only its own two pipe ends: a device forked earlier ends when its stop pipe's writer
    // closes, and a copy of that writer here would keep it waiting forever.
    keep_only_descriptors(port_pipe[1], stop_fds[0]);
    // The child never returns into the bench: an exception must not run the parent's code.
    try {
      VirtualDeviceOptions options;
      options.root = root;
      apply_profile(options, profile);
      if (delayed_ack) {
        // An empty list means all the device implements (VirtualDeviceOptions::features).
        if (options.features.empty())
          options.features = {"shell_v2",        "cmd",
                              "stat_v2",         "ls_v2",
                              "sendrecv_v2",     "sendrecv_v2_brotli",
                              "sendrecv_v2_lz4", "sendrecv_v2_zstd"};
        options.features.emplace_back("delayed_ack");
      }
      VirtualDevice vd(options);
      vd.start();
      const std::uint16_t port = vd.port();
      if (::write(port_pipe[1], &port, sizeof port) != sizeof port) ::_exit(1);
      char byte;
      while (::read(stop_fds[0], &byte, 1) > 0) {
      }
      vd.stop();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(port_pipe[1]);
  ::close(stop_fds[0]);
  stop_pipe_ = stop_fds[1];
  if (pid_ < 0 || ::read(port_pipe[0], &port_, sizeof port_) != sizeof port_) port_ = 0;
  ::close(port_pipe[0]);
  if (port_ == 0) {
    stop();
    throw Error(errc::io_error, "the virtual device's process did not start");
  }
}

ForkedVirtualDevice::~ForkedVirtualDevice() { stop(); }

void ForkedVirtualDevice::stop() noexcept {
  if (stop_pipe_ >= 0) ::close(stop_pipe_);
  stop_pipe_ = -1;
  if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ForkedVirtualDevice::target() const { return "tcp:127.0.0.1:" + std::to_string(port_); }

}  // namespace adbwire::bench
