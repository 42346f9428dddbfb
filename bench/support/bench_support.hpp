// What the end-to-end benches share: timing helpers and a private real adb server (free port,
// temporary HOME, our child process, stopped by PID), so each bench compares against `adb`
// the same way.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace adbwire::bench {

inline constexpr const char* kAdb = "/usr/bin/adb";

// The median of values (0 for none).
double median(std::vector<double> values);
// Median of samples in milliseconds.
double median_ms(std::vector<double> samples);
// Runs op n times; the time of each run in milliseconds.
std::vector<double> time_each(int n, const std::function<void()>& op);
// What a measured child process took: its wall time, its peak RSS (ru_maxrss) and whether
// it succeeded.
struct Sample {
  double seconds = 0;
  long max_rss_kib = 0;
  bool ok = false;
};
// Runs body in a forked child (its true result is exit status 0), so the child's peak RSS is
// its own. Fork before starting threads in the bench, or only from a single-threaded one.
Sample in_child(const std::function<bool()>& body);
// Runs argv with env and output discarded, measured like in_child.
Sample spawn_measured(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// A loopback port with nothing listening: bound once, then released.
std::uint16_t free_port();
// Starts argv[0] with argv and env, stdout and stderr to /dev/null; the pid, or -1.
pid_t spawn_quiet(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// The virtual device in a process of its own, as a phone is a machine of its own: sharing
// the bench's process would let it compete with the host side for the allocator and the
// scheduler (a 64 MiB pull measured 15-40% slower that way). Construct it before the bench
// starts any thread (it forks). It serves `root` until destroyed.
class ForkedVirtualDevice {
 public:
  // Fails (throws adbwire::Error) when the device does not start. `profile` is one of
  // virtual_device_profiles(); delayed_ack adds "delayed_ack" to what it offers.
  explicit ForkedVirtualDevice(const std::filesystem::path& root,
                               std::string_view profile = "default", bool delayed_ack = false);
  // Stops the device and waits for its process.
  ~ForkedVirtualDevice();
  ForkedVirtualDevice(const ForkedVirtualDevice&) = delete;
  ForkedVirtualDevice& operator=(const ForkedVirtualDevice&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // "tcp:127.0.0.1:PORT", for Device::connect.
  std::string target() const;

 private:
  void stop() noexcept;  // closing the pipe ends the device's process

  pid_t pid_ = -1;
  int stop_pipe_ = -1;
  std::uint16_t port_ = 0;
};

// The real adb with its own server: `adb -P PORT nodaemon server` with HOME in a temporary
// folder and ANDROID_*/ADB_* cleared, so a user's server, keys and devices stay out of it.
class PrivateAdb {
 public:
  // Fails with a message naming the fix when /usr/bin/adb is missing or the server never listens.
  PrivateAdb();
  // Stops the server by PID and removes the temporary HOME.
  ~PrivateAdb();
  PrivateAdb(const PrivateAdb&) = delete;
  PrivateAdb& operator=(const PrivateAdb&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // Runs `adb -P PORT args…` with output discarded; the exit status (-1 if it could not run).
  int run(const std::vector<std::string>& args) const;
  // `adb connect 127.0.0.1:PORT`, then waits until the server lists it as a device.
  void connect_device(std::uint16_t device_port) const;
  // The environment adb runs with, for benches that spawn it themselves.
  const std::vector<std::string>& environment() const noexcept { return environment_; }
  // The server's process, for what it costs (its memory).
  pid_t server_pid() const noexcept { return server_pid_; }

 private:
  std::uint16_t port_ = 0;
  std::filesystem::path home_;
  std::vector<std::string> environment_;
  pid_t server_pid_ = -1;
};

}  // namespace adbwire::bench
