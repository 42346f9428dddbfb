// Round trip of one trivial command on a warm connection: adbwire (`exec true`,
// `shell true`, one ADB stream each over an open connection) against the real AOSP adb
// (`adb -s 127.0.0.1:PORT shell true`: a process spawn plus a hop through a running adb
// server), both against the same virtual device in the same run.
//
// Usage: exec_roundtrip_bench [N]   (N round trips per variant, default 200)
// The adb server is private: its own port and a temporary HOME, started and connected once
// before timing and killed at the end.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ip/tcp.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/vdevice.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kAdb = "/usr/bin/adb";

double median_ms(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

// Milliseconds of each of n runs of op.
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

std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

// The real adb, talking to a private server on `port` with HOME in a temporary folder.
class PrivateAdb {
 public:
  PrivateAdb(std::uint16_t port, fs::path home)
      : port_(std::to_string(port)), home_(std::move(home)) {
    for (char** variable = environ; *variable != nullptr; ++variable) {
      const std::string entry = *variable;
      if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_SERIAL=") ||
          entry.starts_with("ANDROID_ADB_SERVER_PORT=") || entry.starts_with("ADB_VENDOR_KEYS=")) {
        continue;
      }
      environment_.push_back(entry);
    }
    environment_.push_back("HOME=" + home_.string());
  }

  // Runs `adb -P PORT args…` with output discarded; returns the exit status (-1 if it
  // could not run).
  int run(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {kAdb, "-P", port_};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> argv_ptrs;
    for (const std::string& arg : argv) argv_ptrs.push_back(const_cast<char*>(arg.c_str()));
    argv_ptrs.push_back(nullptr);
    std::vector<char*> env_ptrs;
    for (const std::string& entry : environment_)
      env_ptrs.push_back(const_cast<char*>(entry.c_str()));
    env_ptrs.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned =
        posix_spawn(&pid, kAdb, &actions, nullptr, argv_ptrs.data(), env_ptrs.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  std::string port_;
  fs::path home_;
  std::vector<std::string> environment_;
};

int run(int n) {
  if (access(kAdb, X_OK) != 0) {
    std::fprintf(stderr, "exec_roundtrip_bench: %s not found: install it (apt-get install adb)\n",
                 kAdb);
    return 1;
  }
  adbwire::VirtualDevice vd;
  vd.start();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());

  adbwire::Device device = adbwire::Device::connect(vd.target());
  for (int i = 0; i < 10; ++i) device.exec("true");
  const auto adbwire_exec = time_each(n, [&] { device.exec("true"); });
  const auto adbwire_shell = time_each(n, [&] {
    if (device.shell("true").exit_code != 0)
      throw adbwire::Error(adbwire::errc::command_failed, "shell true failed");
  });

  std::random_device random;
  const fs::path home = fs::temp_directory_path() / ("adbwire-bench-" + std::to_string(random()));
  fs::create_directories(home);
  PrivateAdb adb(free_port(), home);
  std::vector<double> adb_shell;
  bool adb_ok = adb.run({"start-server"}) == 0 && adb.run({"connect", serial}) == 0 &&
                adb.run({"-s", serial, "wait-for-device"}) == 0 &&
                adb.run({"-s", serial, "shell", "true"}) == 0;
  if (adb_ok) {
    adb_shell = time_each(n, [&] {
      if (adb.run({"-s", serial, "shell", "true"}) != 0) adb_ok = false;
    });
  }
  adb.run({"kill-server"});
  std::error_code ignored;
  fs::remove_all(home, ignored);
  if (!adb_ok) {
    std::fprintf(stderr,
                 "exec_roundtrip_bench: adb could not run `shell true` on %s through its server\n",
                 serial.c_str());
    return 1;
  }

  const double exec_ms = median_ms(adbwire_exec);
  const double shell_ms = median_ms(adbwire_shell);
  const double adb_ms = median_ms(adb_shell);
  std::printf("round trips per variant: N = %d (median per op; virtual device on loopback)\n", n);
  std::printf("  adbwire exec true           %9.3f ms\n", exec_ms);
  std::printf("  adbwire shell true (v2)     %9.3f ms\n", shell_ms);
  std::printf("  adb shell true (via server)  %9.3f ms   (adb -s %s)\n", adb_ms, serial.c_str());
  std::printf("ratio adb/adbwire: %.1fx (exec), %.1fx (shell)\n", adb_ms / exec_ms,
              adb_ms / shell_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: exec_roundtrip_bench [N > 0]\n");
    return 2;
  }
  try {
    return run(n);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exec_roundtrip_bench: %s\n", error.what());
    return 1;
  }
}
