// ShellStream (a shell with its stdin open) and the virtual device's PTY, stdin and
// interactive shell, over real loopback TCP.
#include "adbwire/shell_stream.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

OutputHandler append_to(std::string& out) {
  return [&out](std::span<const std::uint8_t> data) { out.append(data.begin(), data.end()); };
}

VirtualDeviceOptions profile(std::string_view name) {
  VirtualDeviceOptions options;
  apply_profile(options, name);
  return options;
}

TEST(ShellStream, StdinReachesCatAndCloseStdinEndsItOnV2) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.command = "cat";
  ShellStream shell = ShellStream::open(device, options);
  EXPECT_TRUE(shell.shell_protocol());
  shell.write_stdin(protocol::bytes_of("abc"));
  shell.write_stdin(protocol::bytes_of("def\n"));
  EXPECT_TRUE(shell.close_stdin());
  std::string out, err;
  EXPECT_EQ(shell.wait(append_to(out), append_to(err), deadline_after(20s)), 0);
  EXPECT_EQ(out, "abcdef\n");
  EXPECT_EQ(err, "");
}

TEST(ShellStream, V1CarriesStdinButCannotEndIt) {
  VirtualDevice vd(profile("no-shell-v2"));
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.command = "head -c 6";
  ShellStream shell = ShellStream::open(device, options);
  EXPECT_FALSE(shell.shell_protocol());
  EXPECT_FALSE(shell.close_stdin());
  EXPECT_FALSE(shell.resize({24, 80, 0, 0}));
  shell.write_stdin(protocol::bytes_of("abc"));
  shell.write_stdin(protocol::bytes_of("defghi"));
  std::string out;
  EXPECT_EQ(shell.wait(append_to(out), {}, deadline_after(20s)), -1);
  EXPECT_EQ(out, "abcdef");
}

TEST(ShellStream, V1CatKeepsWaitingForTheEndOfStdinUntilClosed) {
  VirtualDevice vd(profile("no-shell-v2"));
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.command = "cat";
  ShellStream shell = ShellStream::open(device, options);
  shell.write_stdin(protocol::bytes_of("abc"));
  std::string out;
  std::error_code error;
  // The output arrives, then nothing ends the command: the deadline does.
  shell.wait(
      [&](std::span<const std::uint8_t> data) {
        out.append(data.begin(), data.end());
        if (out == "abc") shell.close();
      },
      {}, deadline_after(20s), error);
  EXPECT_EQ(out, "abc");
  EXPECT_EQ(error, errc::closed) << error.message();
}

TEST(ShellStream, PtyShellTranslatesNewlinesMergesStderrAndReportsItsSize) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.command = "echo out; echo err >&2; stty size";
  options.pty = true;
  options.term = "xterm-256color";
  ShellStream shell = ShellStream::open(device, options);
  std::string out, err;
  EXPECT_EQ(shell.wait(append_to(out), append_to(err), deadline_after(20s)), 0);
  EXPECT_EQ(out, "out\r\nerr\r\n0 0\r\n");
  EXPECT_EQ(err, "");
}

TEST(ShellStream, InteractiveShellPromptsEchoesRunsAndExitsWithItsCode) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.pty = true;
  ShellStream shell = ShellStream::open(device, options);
  ASSERT_TRUE(shell.resize({33, 101, 0, 0}));
  // Each line is typed once the prompt is back, as a person does: lines typed ahead would be
  // echoed before the output of the one running, as on any terminal.
  const std::string_view lines[] = {"echo hi\r", "stty size\r", "exit 3\r"};
  std::size_t typed = 0;
  std::string out;
  const int status = shell.wait(
      [&](std::span<const std::uint8_t> data) {
        out.append(data.begin(), data.end());
        if (out.ends_with("vdevice:/ $ ") && typed < std::size(lines))
          shell.write_stdin(protocol::bytes_of(lines[typed++]));
      },
      {}, deadline_after(20s));
  EXPECT_EQ(status, 3);
  EXPECT_EQ(out,
            "vdevice:/ $ echo hi\r\nhi\r\n"
            "vdevice:/ $ stty size\r\n33 101\r\n"
            "vdevice:/ $ exit 3\r\n");
}

TEST(ShellStream, InteractiveShellTakesCtrlCAsAnInterruptAndCtrlDAsTheEnd) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  ShellOptions options;
  options.pty = true;
  ShellStream shell = ShellStream::open(device, options);
  std::string out;
  std::thread typist([&] {
    shell.write_stdin(protocol::bytes_of("sleep 30\r"));
    shell.write_stdin(protocol::bytes_of("\x03"));
    shell.write_stdin(protocol::bytes_of("\x04"));
  });
  // sleep 30 would outlast the deadline: Ctrl-C ended it, Ctrl-D the shell (status 130).
  EXPECT_EQ(shell.wait(append_to(out), {}, deadline_after(20s)), 130);
  typist.join();
  EXPECT_EQ(out, "vdevice:/ $ sleep 30\r\n^C\r\nvdevice:/ $ \r\n");
}

TEST(ShellStream, ShellWithoutPtyReadsCommandsFromStdin) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  ShellStream shell = ShellStream::open(device, ShellOptions{});
  shell.write_stdin(protocol::bytes_of("echo one\necho two >&2\nfalse"));
  shell.close_stdin();
  std::string out, err;
  EXPECT_EQ(shell.wait(append_to(out), append_to(err), deadline_after(20s)), 1);
  EXPECT_EQ(out, "one\n");
  EXPECT_EQ(err, "two\n");
}

TEST(ShellStream, EmptyStreamFailsWithClosed) {
  ShellStream shell;
  std::error_code error;
  shell.write_stdin(protocol::bytes_of("x"), kDefaultDeadline, error);
  EXPECT_EQ(error, errc::closed);
  EXPECT_EQ(shell.wait({}, {}, kDefaultDeadline, error), -1);
  EXPECT_EQ(error, errc::closed);
}

// ---- exec on devices without exec: (Android before 5.0)

TEST(ExecFallback, BinaryOutputSurvivesTheLegacyPty) {
  for (const char* name : {"no-exec", "android-4"}) {
    SCOPED_TRACE(name);
    VirtualDevice vd(profile(name));
    vd.start();
    // Every byte value, and the newline sequences a PTY rewrites, ending in a lone '\r'.
    std::string binary;
    while (binary.size() < 300000) {
      for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
      binary += "\r\n\n\r\r\n\r";
    }
    binary.back() = '\r';
    std::ofstream(vd.root() / "sdcard" / "blob.bin", std::ios::binary) << binary;
    Device device = Device::connect(vd.target());
    // The shell (v1 on android-4) sees the newline translation; exec undoes it.
    EXPECT_EQ(device.exec("cat /sdcard/blob.bin"), binary);
    EXPECT_EQ(device.exec("echo a; echo b >&2"), "a\nb\n");
  }
}

TEST(ExecFallback, LegacyShellOutputIsWhatThePtySent) {
  VirtualDevice vd(profile("android-4"));
  vd.start();
  Device device = Device::connect(vd.target());
  const ShellResult result = device.shell("echo a; echo b >&2");
  EXPECT_EQ(result.out, "a\r\nb\r\n");
  EXPECT_EQ(result.exit_code, -1);
}

}  // namespace
}  // namespace adbwire
