// Per-command latency of `shell true` on one virtual device, three ways in one run:
// adbwire through a running adb server (server: target, one server socket per command),
// adbwire direct over TCP (one ADB stream on the open connection), and the real
// `adb -s SERIAL shell true` (a process spawn plus the same server hop).
//
// Usage: server_latency_bench [N]   (N commands per variant, default 200)
// The adb server is private (free port, temporary HOME), our child, stopped by PID at the end.
#include <fcntl.h>
#include <signal.h>
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
#include <thread>
#include <vector>

#include "adbwire/adb_server.hpp"
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

std::vector<double> time_each(int n, const std::function<void()>& op) {
  std::vector<double> samples;
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

// Spawns argv with env; stdout/stderr to /dev/null. Returns the pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
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

int run_adb(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  const pid_t pid = spawn(argv, env);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run(int n) {
  if (access(kAdb, X_OK) != 0) {
    std::fprintf(stderr, "server_latency_bench: %s not found: install it (apt-get install adb)\n",
                 kAdb);
    return 1;
  }
  adbwire::VirtualDevice vd;
  vd.start();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());

  std::random_device random;
  const fs::path home = fs::temp_directory_path() / ("adbwire-bench-" + std::to_string(random()));
  fs::create_directories(home);
  std::vector<std::string> env;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string entry = *variable;
    if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_") || entry.starts_with("ADB_"))
      continue;
    env.push_back(entry);
  }
  env.push_back("HOME=" + home.string());
  env.push_back("ADB_MDNS=0");
  const std::uint16_t port = free_port();
  const std::string port_text = std::to_string(port);
  const pid_t server_pid = spawn({kAdb, "-P", port_text, "nodaemon", "server"}, env);
  if (server_pid < 0) {
    std::fprintf(stderr, "server_latency_bench: cannot start the adb server\n");
    return 1;
  }

  int status = 1;
  try {
    const adbwire::AdbServer server({"127.0.0.1", port});
    // The server needs a moment to listen; version() answers once it does.
    for (int i = 0;; ++i) {
      std::error_code error;
      server.version(adbwire::kDefaultDeadline, error);
      if (!error) break;
      if (i == 100) throw adbwire::Error(error, "the private adb server never listened");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    server.connect("127.0.0.1", vd.port());
    server.wait_for(serial, adbwire::WaitState::device);

    auto check = [](adbwire::Device& device) {
      if (device.shell("true").exit_code != 0)
        throw adbwire::Error(adbwire::errc::command_failed, "shell true failed");
    };
    adbwire::Device through =
        adbwire::Device::connect("server:127.0.0.1:" + port_text + "/" + serial);
    adbwire::Device direct = adbwire::Device::connect(vd.target());
    for (int i = 0; i < 10; ++i) {
      check(through);
      check(direct);
    }
    const auto server_ms = median_ms(time_each(n, [&] { check(through); }));
    const auto direct_ms = median_ms(time_each(n, [&] { check(direct); }));
    bool adb_ok = true;
    const auto adb_ms = median_ms(time_each(n, [&] {
      if (run_adb({kAdb, "-P", port_text, "-s", serial, "shell", "true"}, env) != 0) adb_ok = false;
    }));
    if (!adb_ok) throw adbwire::Error(adbwire::errc::command_failed, "adb shell true failed");

    std::printf("shell true, N = %d per variant (median per command; virtual device on loopback)\n",
                n);
    std::printf("  adbwire direct tcp            %9.3f ms\n", direct_ms);
    std::printf("  adbwire through adb server    %9.3f ms\n", server_ms);
    std::printf("  adb -s %s shell true  %9.3f ms\n", serial.c_str(), adb_ms);
    std::printf("ratios: server/direct %.2fx, adb/server %.1fx, adb/direct %.1fx\n",
                server_ms / direct_ms, adb_ms / server_ms, adb_ms / direct_ms);
    status = 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "server_latency_bench: %s\n", error.what());
  }
  kill(server_pid, SIGTERM);
  waitpid(server_pid, nullptr, 0);
  std::error_code ignored;
  fs::remove_all(home, ignored);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: server_latency_bench [N > 0]\n");
    return 2;
  }
  return run(n);
}
