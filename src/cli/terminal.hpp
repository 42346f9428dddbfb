// The local terminal for `adbwire shell`: raw mode while a device PTY runs, restored on every
// way out (return, exception, SIGINT/SIGTERM/SIGHUP/SIGQUIT), and the window size.
#pragma once

#include <optional>

#include "adbwire/shell_stream.hpp"

namespace adbwire::cli {

// Puts fd (a terminal) in raw mode for its lifetime: no echo, no line editing, Ctrl-C and
// Ctrl-Z as bytes (the device's PTY turns them into signals there). Does nothing when fd is
// not a terminal. One at a time per process: the signal handlers restore the saved settings
// and then die of the signal as they would have.
class RawTerminal {
 public:
  explicit RawTerminal(int fd);
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

  // Puts the saved settings back now (idempotent); the destructor does it too.
  void restore() noexcept;

 private:
  bool owner_ = false;  // this one saved the settings and installed the handlers
};

// fd's window size (TIOCGWINSZ); nullopt when fd is not a terminal.
std::optional<WindowSize> window_size(int fd);

}  // namespace adbwire::cli
