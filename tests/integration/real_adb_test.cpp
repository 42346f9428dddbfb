// The virtual device checked by AOSP's own host code: a private `adb` server (Debian's
// adb package) connects to an in-process VirtualDevice over loopback TCP.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/vdevice.hpp"
#include "vdevice/sample_screen.hpp"

extern char** environ;

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kCommandTimeout = 30s;
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

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool timed_out = false;
};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Runs argv with env, feeding input to its stdin, collecting stdout/stderr; killed at the
// deadline (then timed_out is set).
ProcessResult run_process(std::vector<std::string> argv, std::vector<std::string> env, std::string_view input,
                          std::chrono::steady_clock::duration timeout = kCommandTimeout) {
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
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}, {in[1], POLLOUT, 0}};
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
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t line_count(const fs::path& path) {
  std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Each test: a private temporary HOME (so adb makes its own key and never touches
// ~/.android), a private adb server on a free port run as our child, and a VirtualDevice.
class RealAdbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    adb_ = find_adb();
    ASSERT_FALSE(adb_.empty()) << "the adb program is needed: install Debian package adb (apt-get install adb)";
    std::string pattern = (fs::temp_directory_path() / "adbwire-real-adb-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    temp_ = pattern;
    fs::create_directories(temp_ / "home");

    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view entry = *e;
      if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_") || entry.starts_with("ADB_")) continue;
      env_.emplace_back(entry);
    }
    env_.push_back("HOME=" + (temp_ / "home").string());
    env_.push_back("ADB_MDNS=0");

    server_port_ = free_port();
    start_server();
  }

  void TearDown() override {
    if (server_pid_ > 0) {
      run_process({adb_, "-P", std::to_string(server_port_), "kill-server"}, env_, {}, 10s);
      int status = 0;
      auto deadline = std::chrono::steady_clock::now() + 5s;
      while (::waitpid(server_pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(server_pid_, SIGKILL);
          ::waitpid(server_pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(50ms);
      }
    }
    if (device_) device_->stop();
    std::error_code ignored;
    if (!temp_.empty()) fs::remove_all(temp_, ignored);
  }

  // `adb -P PORT nodaemon server`, our child, so teardown can always kill it by pid.
  void start_server() {
    std::vector<std::string> argv = {adb_, "-P", std::to_string(server_port_), "nodaemon", "server"};
    std::string log = (temp_ / "adb-server.log").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    auto args = c_strings(argv);
    auto envp = c_strings(env_);
    int spawned = ::posix_spawn(&server_pid_, adb_.c_str(), &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "cannot start " << adb_ << ": " << std::strerror(spawned);
    // Client commands would start a daemon of their own if ours were not listening yet.
    auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
    for (;;) {
      int fd = connect_loopback(server_port_);
      if (fd >= 0) {
        ::close(fd);
        break;
      }
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "adb server did not listen on port " << server_port_ << "; its log:\n" << read_file(log);
      std::this_thread::sleep_for(50ms);
    }
  }

  void start_device(VirtualDeviceOptions options = {}) {
    device_.emplace(std::move(options));
    device_->start();
    serial_ = "127.0.0.1:" + std::to_string(device_->port());
  }

  ProcessResult adb(std::vector<std::string> args, std::string_view input = {}) {
    args.insert(args.begin(), {adb_, "-P", std::to_string(server_port_)});
    auto result = run_process(std::move(args), env_, input);
    EXPECT_FALSE(result.timed_out) << "adb did not finish in time";
    return result;
  }

  // adb -s SERIAL args…
  ProcessResult adb_s(std::vector<std::string> args, std::string_view input = {}) {
    args.insert(args.begin(), {"-s", serial_});
    return adb(std::move(args), input);
  }

  // `adb connect` then waits (bounded) until the server reports the device online.
  void connect_and_wait() {
    adb({"connect", serial_});
    auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
    std::string last;
    for (;;) {
      auto state = adb_s({"get-state"});
      if (state.out == "device\n") return;
      last = state.out + state.err;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "device never came online; last get-state: " << last;
      std::this_thread::sleep_for(100ms);
    }
  }

  std::string adb_;
  fs::path temp_;
  std::vector<std::string> env_;
  std::uint16_t server_port_ = 0;
  pid_t server_pid_ = -1;
  std::optional<VirtualDevice> device_;
  std::string serial_;
};

TEST_F(RealAdbTest, ShellEchoesAndReportsExitCodes) {
  start_device();
  connect_and_wait();
  auto hello = adb_s({"shell", "echo", "hello"});
  EXPECT_EQ(hello.out, "hello\n");
  EXPECT_EQ(hello.exit_code, 0);
  EXPECT_EQ(adb_s({"shell", "false"}).exit_code, 1);
  EXPECT_EQ(adb_s({"shell", "exit", "3"}).exit_code, 3);
  auto missing = adb_s({"shell", "no_such_tool"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_EQ(missing.err, "/system/bin/sh: no_such_tool: inaccessible or not found\n");
  EXPECT_EQ(missing.out, "");
}

TEST_F(RealAdbTest, ExecOutScreencapIsTheLibrarysPng) {
  start_device();
  connect_and_wait();
  auto shot = adb_s({"exec-out", "screencap", "-p"});
  EXPECT_EQ(shot.exit_code, 0);
  ASSERT_GE(shot.out.size(), 33u);
  EXPECT_EQ(shot.out.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(shot.out.substr(12, 4), "IHDR");
  EXPECT_EQ(shot.out.substr(16, 8), std::string("\0\0\x04\x38\0\0\x09\x60", 8));  // 1080 x 2400
  auto expected = vdevice::SampleScreen::instance().png_bytes();
  ASSERT_EQ(shot.out.size(), expected.size());
  EXPECT_TRUE(shot.out == std::string(expected.begin(), expected.end())) << "PNG bytes differ";
}

TEST_F(RealAdbTest, UiautomatorDumpRoundTrip) {
  start_device();
  connect_and_wait();
  auto dump = adb_s({"shell", "uiautomator dump /data/local/tmp/u.xml && cat /data/local/tmp/u.xml"});
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_EQ(dump.out, "UI hierchary dumped to: /data/local/tmp/u.xml\n" + std::string(vdevice::sample_screen_xml()));
  EXPECT_EQ(read_file(device_->root() / "data/local/tmp/u.xml"), vdevice::sample_screen_xml());
}

TEST_F(RealAdbTest, InputTapIsRecorded) {
  start_device();
  connect_and_wait();
  EXPECT_EQ(adb_s({"shell", "input", "tap", "10", "20"}).exit_code, 0);
  auto events = device_->events();
  EXPECT_NE(std::find(events.begin(), events.end(), "input tap 10 20"), events.end());
}

TEST_F(RealAdbTest, StdinReachesCat) {
  start_device();
  connect_and_wait();
  auto echoed = adb_s({"shell", "cat"}, "abc\n");
  EXPECT_EQ(echoed.out, "abc\n");
  EXPECT_EQ(echoed.exit_code, 0);
}

TEST_F(RealAdbTest, LargeOutputStreamsCompletely) {
  start_device();
  connect_and_wait();
  constexpr std::size_t kSize = 64 * 1024 * 1024 + 123;
  auto zeros = adb_s({"exec-out", "head", "-c", std::to_string(kSize), "/dev/zero"});
  ASSERT_EQ(zeros.out.size(), kSize);
  EXPECT_EQ(zeros.out.find_first_not_of('\0'), std::string::npos);
}

TEST_F(RealAdbTest, ParallelStreamsShareTheConnection) {
  start_device();
  connect_and_wait();
  constexpr int kStreams = 4;
  constexpr std::size_t kSize = 8 * 1024 * 1024;
  std::vector<ProcessResult> results(kStreams);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStreams; ++i) {
    threads.emplace_back([&, i] {
      results[static_cast<std::size_t>(i)] =
          adb_s({"exec-out", "head -c " + std::to_string(kSize + static_cast<std::size_t>(i)) + " /dev/zero"});
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(results[static_cast<std::size_t>(i)].out.size(), kSize + static_cast<std::size_t>(i)) << "stream " << i;
  }
}

TEST_F(RealAdbTest, UnknownServiceIsRefusedAndTheConnectionLivesOn) {
  start_device();
  connect_and_wait();
  auto reverse = adb_s({"reverse", "--list"});
  EXPECT_NE(reverse.exit_code, 0);
  EXPECT_EQ(adb_s({"shell", "echo", "still here"}).out, "still here\n");
}

TEST_F(RealAdbTest, BrokenHostLosesOnlyItsOwnConnection) {
  start_device();
  connect_and_wait();
  int fd = connect_loopback(device_->port());
  ASSERT_GE(fd, 0);
  // 24 bytes of header with a wrong magic: a protocol error.
  const char garbage[24] = "CNXN this is not adb!!!";
  ASSERT_EQ(::write(fd, garbage, sizeof garbage), static_cast<ssize_t>(sizeof garbage));
  pollfd pfd{fd, POLLIN, 0};
  ASSERT_EQ(::poll(&pfd, 1, 10000), 1) << "the virtual device kept a broken connection open";
  char byte;
  EXPECT_EQ(::read(fd, &byte, 1), 0);
  ::close(fd);
  EXPECT_EQ(adb_s({"shell", "echo", "ok"}).out, "ok\n");
}

TEST_F(RealAdbTest, AuthAcceptsTheOfferedKeyThenItsSignature) {
  fs::path keys = temp_ / "adb_keys";
  std::ofstream(keys).close();
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = keys;
  options.accept_new_keys = true;
  start_device(options);

  connect_and_wait();
  ASSERT_EQ(line_count(keys), 1u);
  std::string offered = read_file(keys);
  std::string adbkey_pub = read_file(temp_ / "home" / ".android" / "adbkey.pub");
  ASSERT_FALSE(adbkey_pub.empty()) << "adb did not create its key in the temporary HOME";
  EXPECT_EQ(offered.substr(0, offered.find(' ')), adbkey_pub.substr(0, adbkey_pub.find(' ')));

  adb({"disconnect", serial_});
  connect_and_wait();
  EXPECT_EQ(adb_s({"shell", "echo", "signed"}).out, "signed\n");
  // The second connection signed the token with the stored key: nothing was appended.
  EXPECT_EQ(line_count(keys), 1u);
}

TEST_F(RealAdbTest, UnknownKeyStaysUnauthorized) {
  fs::path keys = temp_ / "adb_keys";
  std::ofstream(keys).close();
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = keys;
  start_device(options);

  adb({"connect", serial_});
  auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
  std::string state;
  while (std::chrono::steady_clock::now() < deadline) {
    auto result = adb_s({"get-state"});
    state = result.out + result.err;
    if (state.find("unauthorized") != std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(state.find("unauthorized"), std::string::npos) << state;
  EXPECT_NE(adb_s({"shell", "echo", "x"}).exit_code, 0);
  EXPECT_EQ(line_count(keys), 0u);
}

TEST_F(RealAdbTest, CliVdeviceServesUntilSigterm) {
  std::vector<std::string> argv = {ADBWIRE_CLI_PATH, "vdevice", "--port", "0", "--serial", "cli-serial"};
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  auto args = c_strings(argv);
  auto envp = c_strings(env_);
  pid_t pid = 0;
  int spawned = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ASSERT_EQ(spawned, 0) << "cannot run " << argv[0] << ": " << std::strerror(spawned);

  // The first line says where it listens; it must arrive without the program exiting.
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + kOnlineTimeout;
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{out[0], POLLIN, 0};
    if (::poll(&pfd, 1, 100) != 1) continue;
    char buffer[256];
    ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    line.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  const std::string prefix = "adbwire vdevice listening on tcp:127.0.0.1:";
  bool listening = line.starts_with(prefix) && line.ends_with("\n");
  if (listening) {
    serial_ = "127.0.0.1:" + line.substr(prefix.size(), line.size() - prefix.size() - 1);
    connect_and_wait();
    EXPECT_EQ(adb_s({"shell", "getprop", "ro.serialno"}).out, "cli-serial\n");
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  deadline = std::chrono::steady_clock::now() + 10s;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL() << "adbwire vdevice did not exit after SIGTERM";
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(listening) << "first line: " << line;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace adbwire
