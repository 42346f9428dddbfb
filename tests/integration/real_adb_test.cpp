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

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "vdevice/sample_screen.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::c_strings;
using test::connect_loopback;
using test::ProcessResult;
using test::read_file;

constexpr auto kOnlineTimeout = 20s;

std::size_t line_count(const fs::path& path) {
  std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Each test: a private temporary HOME (so adb makes its own key and never touches
// ~/.android), a private adb server on a free port run as our child, and a VirtualDevice.
class RealAdbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_.start(), "");
    adb_ = server_.adb_path();
    temp_ = server_.temp();
    env_ = server_.env();
  }

  void TearDown() override {
    if (device_) device_->stop();
  }

  void start_device(VirtualDeviceOptions options = {}) {
    device_.emplace(std::move(options));
    device_->start();
    serial_ = "127.0.0.1:" + std::to_string(device_->port());
  }

  ProcessResult adb(std::vector<std::string> args, std::string_view input = {}) {
    return server_.adb(std::move(args), input);
  }

  // adb -s SERIAL args…
  ProcessResult adb_s(std::vector<std::string> args, std::string_view input = {}) {
    args.insert(args.begin(), {"-s", serial_});
    return adb(std::move(args), input);
  }

  // `adb connect` then waits (bounded) until the server reports the device online.
  void connect_and_wait() { ASSERT_EQ(server_.connect_and_wait(serial_), ""); }

  test::AdbServerProcess server_;
  std::string adb_;
  fs::path temp_;
  std::vector<std::string> env_;
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
  auto dump =
      adb_s({"shell", "uiautomator dump /data/local/tmp/u.xml && cat /data/local/tmp/u.xml"});
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_EQ(dump.out, "UI hierchary dumped to: /data/local/tmp/u.xml\n" +
                          std::string(vdevice::sample_screen_xml()));
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
          adb_s({"exec-out",
                 "head -c " + std::to_string(kSize + static_cast<std::size_t>(i)) + " /dev/zero"});
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(results[static_cast<std::size_t>(i)].out.size(), kSize + static_cast<std::size_t>(i))
        << "stream " << i;
  }
}

TEST_F(RealAdbTest, UnknownServiceIsRefusedAndTheConnectionLivesOn) {
  start_device();
  connect_and_wait();
  // The virtual device serves no such service (`adb ppp SERVICE` opens the one named); adb reports
  // the refusal and exits non-zero.
  auto refused = adb_s({"ppp", "nosuchservice:"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("could not open adb service nosuchservice:"), std::string::npos)
      << refused.err;
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
  std::vector<std::string> argv = {ADBWIRE_CLI_PATH, "vdevice",   "--port", "0",
                                   "--serial",       "cli-serial"};
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
