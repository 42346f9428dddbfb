// The virtual device's shell interpreter: runs one command line (see shell_parser.hpp) as a
// sequence of builtin jobs. Sans-IO like the protocol core: the caller feeds stdin, gives
// an output sink that says how much it can take, and does the waiting (sleep, stdin,
// output room). Not thread safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/shell_job.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {

// Where the script's stdout and stderr go when not redirected.
class ShellOutput {
 public:
  virtual ~ShellOutput() = default;
  // Bytes the stream takes now; 0 pauses output-producing jobs until the caller resumes.
  virtual std::size_t room() const = 0;
  virtual void write_stdout(std::span<const std::uint8_t> bytes) = 0;
  virtual void write_stderr(std::span<const std::uint8_t> bytes) = 0;
  // The PTY the script runs on, for `stty size`; nullptr without one.
  virtual const protocol::WindowSize* terminal() const { return nullptr; }
};

class ShellScript {
 public:
  enum class State {
    running,      // yielded after max_steps: call run() again soon
    blocked,      // output has no room: call run() when it has
    needs_input,  // call run() after feed_stdin() or close_stdin()
    sleeping,     // call run() after sleep_duration()
    finished,     // exit_code() is final
  };

  // Parses text; a syntax error makes a script that prints it and exits 2, like sh.
  ShellScript(std::string_view text, DeviceContext& device);
  ~ShellScript();

  // Works until something must be waited for, or max_steps job steps were taken.
  State run(ShellOutput& output, int max_steps = 64);

  std::chrono::milliseconds sleep_duration() const noexcept { return sleep_; }
  int exit_code() const noexcept { return exit_code_; }
  // The script ran `exit`: an interactive shell ends with it.
  bool exit_requested() const noexcept { return exit_requested_; }

  void feed_stdin(std::span<const std::uint8_t> bytes);
  void close_stdin() noexcept { stdin_eof_ = true; }
  // Bytes fed but not yet read by a command.
  std::size_t stdin_buffered() const noexcept { return stdin_.size() - stdin_offset_; }

 private:
  class CommandIo;
  bool start_command(ShellOutput& output);
  void finish_command(int exit_code);

  DeviceContext& device_;
  std::vector<ShellCommand> commands_;
  std::size_t next_ = 0;
  std::unique_ptr<Job> job_;
  std::unique_ptr<CommandIo> io_;
  std::string syntax_error_;
  bool exit_requested_ = false;
  bool finished_ = false;
  int exit_code_ = 0;
  std::chrono::milliseconds sleep_{0};
  std::vector<std::uint8_t> stdin_;
  std::size_t stdin_offset_ = 0;
  bool stdin_eof_ = false;
};

}  // namespace adbwire::vdevice
