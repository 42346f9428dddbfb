// `adbwire shell`'s input side, as adb's stdin thread (client/commandline.cpp): local stdin to
// the device shell, the end of stdin (shell protocol v2 only), window-size changes (SIGWINCH),
// and in raw mode the escape sequences ssh and adb read.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "adbwire/shell_stream.hpp"

namespace adbwire::cli {

// adb's and ssh's escapes, for a raw terminal: at the start of a line (the first byte, or after
// '\r' or '\n'), ESCAPE '.' disconnects; ESCAPE ESCAPE sends one ESCAPE; ESCAPE followed by
// anything else sends both. Sans-IO.
class EscapeFilter {
 public:
  // escape 0: no escapes, every byte passes.
  explicit EscapeFilter(char escape) : escape_(static_cast<std::uint8_t>(escape)) {}

  // Appends to out what goes to the device; true once ESCAPE '.' was typed (what follows it
  // is dropped).
  bool feed(std::span<const std::uint8_t> typed, std::vector<std::uint8_t>& out);

 private:
  enum class State { mid_flow, start_of_line, in_escape };
  std::uint8_t escape_;
  State state_ = State::start_of_line;
};

struct ShellInputOptions {
  int fd = 0;                       // what to read; -1: nothing (adb shell -n)
  bool window_size = false;         // send fd's size now and on every SIGWINCH (v2)
  char escape = 0;                  // EscapeFilter's escape, 0 for none (only with a raw terminal)
  Deadline deadline = kNoDeadline;  // for each write to the device
};

// A thread copying fd to the shell's stdin until fd ends (then close_stdin(): v2 says so, v1
// cannot), the shell ends, or stop(). Installs a SIGWINCH handler while it runs (one at a time
// per process).
class ShellInput {
 public:
  ShellInput(ShellStream& shell, ShellInputOptions options);
  ~ShellInput();
  ShellInput(const ShellInput&) = delete;
  ShellInput& operator=(const ShellInput&) = delete;

  // Closes the shell (waking a write blocked on it) and joins the thread. Idempotent.
  void stop() noexcept;
  // True when the escape sequence ended the session (the shell was closed for it).
  bool disconnected() const noexcept { return disconnected_; }

 private:
  void run();

  ShellStream& shell_;
  ShellInputOptions options_;
  int stop_pipe_[2] = {-1, -1};
  int winch_pipe_[2] = {-1, -1};
  std::atomic<bool> disconnected_{false};
  std::thread thread_;
};

}  // namespace adbwire::cli
