// `adbwire shell` and `exec-out` as processes, the way adb users drive them: stdin from a pipe,
// an interactive shell on a real PTY (forkpty) with a raw local terminal, window sizes, Ctrl-C
// and the ~. escape, and output into a pipe whose reader went away.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kWait = 20s;  // a bound for hangs, never a pause

VirtualDeviceOptions profile(std::string_view name) {
  VirtualDeviceOptions options;
  apply_profile(options, name);
  return options;
}

std::vector<std::string> cli(const VirtualDevice& vd, std::vector<std::string> args) {
  args.insert(args.begin(), {ADBWIRE_CLI_PATH, "-s", vd.target()});
  return args;
}

// Reads fd until `text` has appeared in what was read (returned whole), EOF or kWait.
std::string read_until(int fd, std::string_view text, std::string& seen) {
  const auto deadline = Clock::now() + kWait;
  char buffer[4096];
  while (seen.find(text) == std::string::npos && Clock::now() < deadline) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 200) <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  return seen;
}

// Waits (bounded) for pid; the exit status, 128+N for a signal, -1 if it never ended.
int wait_for(pid_t pid) {
  const auto deadline = Clock::now() + kWait;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    ::poll(nullptr, 0, 10);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A child whose stdin and stdout are pipes we hold.
struct PipedChild {
  pid_t pid = -1;
  int in = -1;   // its stdin
  int out = -1;  // its stdout

  explicit PipedChild(std::vector<std::string> argv) {
    int stdin_pipe[2], stdout_pipe[2];
    if (::pipe2(stdin_pipe, O_CLOEXEC) != 0 || ::pipe2(stdout_pipe, O_CLOEXEC) != 0) return;
    auto args = test::c_strings(argv);
    pid = ::fork();
    if (pid == 0) {
      ::dup2(stdin_pipe[0], 0);
      ::dup2(stdout_pipe[1], 1);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(stdin_pipe[0]);
    ::close(stdout_pipe[1]);
    in = stdin_pipe[1];
    out = stdout_pipe[0];
  }
  ~PipedChild() {
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  void close_stdin() {
    ::close(in);
    in = -1;
  }
};

// ---- stdin

TEST(CliShell, PipedStdinReachesCatAndItsEndEndsCatOnV2) {
  VirtualDevice vd;
  vd.start();
  const test::ProcessResult run = test::run_process(cli(vd, {"shell", "cat"}), {}, "abc", kWait);
  EXPECT_FALSE(run.timed_out) << "cat never saw the end of stdin";
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "abc");
}

TEST(CliShell, LargePipedStdinArrivesWhole) {
  VirtualDevice vd;
  vd.start();
  std::string input;
  for (int i = 0; input.size() < 600000; ++i) input += "line " + std::to_string(i) + "\n";
  const test::ProcessResult run = test::run_process(cli(vd, {"shell", "cat"}), {}, input, kWait);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, input);
}

TEST(CliShell, PipedStdinReachesTheCommandOnV1) {
  VirtualDevice vd(profile("no-shell-v2"));
  vd.start();
  // head ends by itself after 3 bytes; its status is not reported on v1, so adbwire exits 0.
  const test::ProcessResult head =
      test::run_process(cli(vd, {"shell", "head", "-c", "3"}), {}, "abcdef", kWait);
  EXPECT_EQ(head.exit_code, 0) << head.err;
  EXPECT_EQ(head.out, "abc");

  // cat gets every byte, but v1 has no way to say stdin ended: cat goes on until ended, as
  // with adb.
  PipedChild cat(cli(vd, {"shell", "cat"}));
  ASSERT_GT(cat.pid, 0);
  ASSERT_EQ(::write(cat.in, "abc", 3), 3);
  cat.close_stdin();
  std::string seen;
  EXPECT_EQ(read_until(cat.out, "abc", seen), "abc");
  EXPECT_EQ(::waitpid(cat.pid, nullptr, WNOHANG), 0) << "cat on v1 ended without end of stdin";
  ::kill(cat.pid, SIGTERM);
  EXPECT_EQ(wait_for(cat.pid), 128 + SIGTERM);
  cat.pid = -1;
}

TEST(CliShell, DashNReadsNoStdin) {
  VirtualDevice vd;
  vd.start();
  const test::ProcessResult run =
      test::run_process(cli(vd, {"shell", "-n", "cat"}), {}, "ignored", kWait);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(CliShell, ShellWithoutCommandRunsAScriptFromStdin) {
  VirtualDevice vd;
  vd.start();
  const test::ProcessResult run =
      test::run_process(cli(vd, {"shell"}), {}, "echo one\necho two\nexit 4\n", kWait);
  EXPECT_EQ(run.exit_code, 4) << run.err;
  EXPECT_EQ(run.out, "one\ntwo\n");
}

TEST(CliShell, PtyFlagsFollowAdb) {
  VirtualDevice vd;
  vd.start();
  // -t without a terminal on stdin: refused with adb's words; -tt insists (a PTY: "\r\n").
  const test::ProcessResult once = test::run_process(cli(vd, {"shell", "-t", "echo", "x"}), {}, "");
  EXPECT_EQ(once.out, "x\n");
  EXPECT_NE(once.err.find("Remote PTY will not be allocated"), std::string::npos) << once.err;
  const test::ProcessResult twice =
      test::run_process(cli(vd, {"shell", "-tt", "echo", "x"}), {}, "");
  EXPECT_EQ(twice.out, "x\r\n") << twice.err;
  // A device without shell_v2 can only give a PTY: -T is an error there.
  VirtualDevice v1(profile("no-shell-v2"));
  v1.start();
  const test::ProcessResult raw = test::run_process(cli(v1, {"shell", "-T", "true"}), {}, "");
  EXPECT_EQ(raw.exit_code, 1);
  EXPECT_NE(raw.err.find("only supports allocating a pty"), std::string::npos) << raw.err;
}

// ---- an interactive shell on a real terminal

class InteractiveShell : public ::testing::Test {
 protected:
  void TearDown() override {
    if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) ::close(master_);
  }

  void start(const VirtualDevice& vd, winsize size) {
    std::vector<std::string> argv = cli(vd, {"shell"});
    std::vector<std::string> env = test::with_test_runtime({"TERM=xterm"});
    auto args = test::c_strings(argv);
    auto envp = test::c_strings(env);
    pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::execve(args[0], args.data(), envp.data());
      ::_exit(127);
    }
    termios before{};
    ASSERT_EQ(::tcgetattr(master_, &before), 0);
    cooked_ = before;
    ASSERT_TRUE(before.c_lflag & ECHO);
  }

  void type(std::string_view text) {
    ASSERT_EQ(::write(master_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }

  // Everything shown since the last call, once it contains `text`.
  std::string expect_shown(std::string_view text) {
    std::string seen;
    read_until(master_, text, seen);
    EXPECT_NE(seen.find(text), std::string::npos) << "never shown: " << text << "\nshown: " << seen;
    return seen;
  }

  void expect_terminal_restored() {
    termios after{};
    ASSERT_EQ(::tcgetattr(master_, &after), 0);
    EXPECT_EQ(after.c_lflag & (ECHO | ICANON | ISIG), cooked_.c_lflag & (ECHO | ICANON | ISIG));
    EXPECT_EQ(after.c_iflag & ICRNL, cooked_.c_iflag & ICRNL);
  }

  pid_t pid_ = -1;
  int master_ = -1;
  termios cooked_{};
};

TEST_F(InteractiveShell, TypesCommandsSeesResizesPassesCtrlCAndExits) {
  VirtualDevice vd;
  vd.start();
  start(vd, {40, 120, 0, 0});
  expect_shown("vdevice:/ $ ");
  // While the shell runs the local terminal is raw: Enter is a bare '\r' the device turns into
  // a newline, and the device's PTY does the echo.
  termios during{};
  ASSERT_EQ(::tcgetattr(master_, &during), 0);
  EXPECT_EQ(during.c_lflag & (ECHO | ICANON | ISIG), 0u);

  type("echo hello\r");
  expect_shown("hello\r\nvdevice:/ $ ");
  type("stty size\r");
  expect_shown("40 120\r\nvdevice:/ $ ");

  // A new size reaches the device's PTY (SIGWINCH → window-size packet). The signal and the
  // typed line race, so the line is typed again until the device shows the new size.
  winsize bigger{50, 132, 0, 0};
  ASSERT_EQ(::ioctl(master_, TIOCSWINSZ, &bigger), 0);
  std::string shown;
  for (int attempt = 0; attempt < 50 && shown.find("50 132") == std::string::npos; ++attempt) {
    type("stty size\r");
    shown = expect_shown("vdevice:/ $ ");
  }
  EXPECT_NE(shown.find("50 132\r\n"), std::string::npos) << shown;

  // Ctrl-C is a byte for the device: it ends the remote command, not adbwire.
  type("sleep 30\r");
  expect_shown("sleep 30\r\n");
  type("\x03");
  expect_shown("^C\r\nvdevice:/ $ ");
  EXPECT_EQ(::waitpid(pid_, nullptr, WNOHANG), 0) << "Ctrl-C ended adbwire";

  type("exit 5\r");
  EXPECT_EQ(wait_for(pid_), 5);
  pid_ = -1;
  expect_terminal_restored();
}

TEST_F(InteractiveShell, TildeDotDisconnectsOnlyAtTheStartOfALine) {
  VirtualDevice vd;
  vd.start();
  start(vd, {24, 80, 0, 0});
  expect_shown("vdevice:/ $ ");
  // Mid-line, ~ is an ordinary character; ~~ at the start of a line sends one ~.
  type("echo a~.b\r");
  expect_shown("a~.b\r\nvdevice:/ $ ");
  type("~~x\r");
  expect_shown("~x: inaccessible or not found");
  type("~.");
  expect_shown("[ disconnected ]");
  EXPECT_EQ(wait_for(pid_), 0);
  pid_ = -1;
  expect_terminal_restored();
}

TEST_F(InteractiveShell, TerminalIsRestoredWhenAdbwireIsKilled) {
  VirtualDevice vd;
  vd.start();
  start(vd, {24, 80, 0, 0});
  expect_shown("vdevice:/ $ ");
  ::kill(pid_, SIGTERM);
  EXPECT_EQ(wait_for(pid_), 128 + SIGTERM);
  pid_ = -1;
  expect_terminal_restored();
}

// ---- output into a pipe whose reader went away, and real write errors

// Runs args with stdout into a pipe, reads `keep` bytes, closes the read end: `| head -c keep`.
int run_into_closed_pipe(std::vector<std::string> argv, std::size_t keep, std::string& err) {
  int out[2], errors[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(errors, O_CLOEXEC) != 0) return -1;
  auto args = test::c_strings(argv);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(errors[1], 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(errors[1]);
  std::string head;
  char buffer[4096];
  while (head.size() < keep) {
    const ssize_t n = ::read(out[0], buffer, std::min(sizeof buffer, keep - head.size()));
    if (n <= 0) break;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  std::string seen;
  read_until(errors[0], "\n", seen);
  err = seen;
  ::close(errors[0]);
  return head.size() == keep ? wait_for(pid) : -2;
}

TEST(CliOutput, ExecOutIntoAClosedPipeEndsQuietlyWithZero) {
  VirtualDevice vd;
  vd.start();
  std::string err;
  // 2 GB would take minutes to drain: adbwire stops at the broken pipe instead.
  EXPECT_EQ(
      run_into_closed_pipe(cli(vd, {"exec-out", "head", "-c", "2000000000", "/dev/zero"}), 10, err),
      0);
  EXPECT_EQ(err, "");
}

TEST(CliOutput, ShellIntoAClosedPipeEndsQuietlyWithZero) {
  VirtualDevice vd;
  vd.start();
  std::string err;
  EXPECT_EQ(
      run_into_closed_pipe(cli(vd, {"shell", "head", "-c", "2000000000", "/dev/zero"}), 10, err),
      0);
  EXPECT_EQ(err, "");
}

TEST(CliOutput, AFullDiskIsAnErrorNotAQuietEnd) {
  VirtualDevice vd;
  vd.start();
  const test::ProcessResult run = test::run_process(
      {"/bin/sh", "-c", "\"$0\" -s \"$1\" exec-out head -c 100000 /dev/zero > /dev/full",
       ADBWIRE_CLI_PATH, vd.target()},
      {}, "", kWait);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
}

TEST(CliUsage, AUsageErrorExitsOneAsAdbDoesAndHelpExitsZero) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--no-such-option"},
                                               {"shell", "--no-such-option", "x"},
                                               {"pull"},
                                               {"--auth-timeout", "-5", "devices"}}) {
    std::vector<std::string> line{ADBWIRE_CLI_PATH};
    line.insert(line.end(), args.begin(), args.end());
    const test::ProcessResult run = test::run_process(line, {}, "", kWait);
    EXPECT_EQ(run.exit_code, 1) << args.front() << ": " << run.out << run.err;
    EXPECT_FALSE(run.err.empty()) << args.front() << ": a usage error must say what is wrong";
  }
  const test::ProcessResult help = test::run_process({ADBWIRE_CLI_PATH, "--help"}, {}, "", kWait);
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace adbwire
