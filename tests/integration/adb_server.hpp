// A private real adb server for integration tests: Debian's adb on a free port with a
// temporary HOME (so it makes its own key and never touches ~/.android), run as our child
// and stopped by PID. Plus the process helpers the tests use to drive adb.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool timed_out = false;
  long max_rss_kib = 0;  // the process's peak resident memory (wait4's ru_maxrss)
};

// Sets entry ("NAME=VALUE") in env, replacing NAME's earlier value: a variable given twice is
// read from its first entry, so appending would leave the inherited value in force.
void set_variable(std::vector<std::string>& env, const std::string& entry);

// Runs argv with env, feeding input to its stdin, collecting stdout/stderr; killed at the
// timeout (then timed_out is set). Spawn failures are reported as test failures.
ProcessResult run_process(std::vector<std::string> argv, std::vector<std::string> env,
                          std::string_view input,
                          std::chrono::steady_clock::duration timeout = std::chrono::seconds(30));

// env, with the test's runtime folder and HOME (those ctest gives each test binary) added when env
// names none: a CLI a test runs never uses the user's own (its sessions, its daemon, its host key).
// run_process and Background add them themselves.
std::vector<std::string> with_test_runtime(std::vector<std::string> env);

// argv-style pointers into strings (null terminated), for posix_spawn.
std::vector<char*> c_strings(std::vector<std::string>& strings);

// The first `adb` on PATH; empty when there is none.
std::string find_adb();
// A TCP port on 127.0.0.1 that was free a moment ago.
std::uint16_t free_port();
// A connected socket to 127.0.0.1:port, or -1.
int connect_loopback(std::uint16_t port);
// A socket listening on 127.0.0.1 at a port the system chose (port gets it), or -1.
int listen_loopback(std::uint16_t& port);
std::string read_file(const std::filesystem::path& path);

// A program running beside a test (`adbwire forward`, `adbwire server`), its stdout and stderr on
// one pipe; killed by PID when it goes, if it still runs.
class Background {
 public:
  Background(std::vector<std::string> argv, std::vector<std::string> env);
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  // The first line it prints, "" if none within 10 s.
  std::string first_line();
  // Everything it printed (since the last call) up to and including the first `needle` that
  // appears within `wait`; all it printed meanwhile when none did.
  std::string read_until(std::string_view needle, std::chrono::milliseconds wait);
  // Closes our end of its output: its next write fails with EPIPE (a reader that went away).
  void close_output();
  static constexpr int kRunning = -100;
  // Its exit code once it has ended within `wait`, else kRunning (-1: killed by a signal).
  int exit_code(std::chrono::milliseconds wait);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string unread_;  // read by read_until past its needle
};

// Each instance: a temporary folder (HOME inside), our environment without HOME, ANDROID_*
// and ADB_* variables, and `adb -P PORT nodaemon server` as our child. Tests check
// start()'s message with ASSERT_EQ(server.start(), "").
class AdbServerProcess {
 public:
  AdbServerProcess() = default;
  AdbServerProcess(const AdbServerProcess&) = delete;
  AdbServerProcess& operator=(const AdbServerProcess&) = delete;
  // `adb kill-server`, then SIGKILL by PID if it lingers; removes the temporary folder.
  ~AdbServerProcess();

  // Starts the server and waits (bounded) until it listens. Returns "" on success, else
  // what went wrong (adb missing: how to install it).
  std::string start();

  // adb -P PORT args…; a run that times out is a test failure.
  ProcessResult adb(std::vector<std::string> args, std::string_view input = {}) const;

  // `adb connect SERIAL`, then waits (bounded) until get-state says device. Returns "" on
  // success, else the last state seen.
  std::string connect_and_wait(const std::string& serial) const;

  std::uint16_t port() const noexcept { return port_; }
  pid_t pid() const noexcept { return pid_; }
  const std::string& adb_path() const noexcept { return adb_; }
  const std::filesystem::path& temp() const noexcept { return temp_; }
  const std::vector<std::string>& env() const noexcept { return env_; }

 private:
  std::string adb_;
  std::filesystem::path temp_;
  std::vector<std::string> env_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace adbwire::test
