// What a PTY does between the virtual device's shell and the host, in the default termios of
// a new Android PTY: output processing (ONLCR: "\n" leaves as "\r\n") and, on input, the
// canonical line discipline (ICRNL, ECHO, erase, Ctrl-C as SIGINT, Ctrl-D as end of file).
// Sans-IO: bytes in, echo and input events out. Not thread safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"

namespace adbwire::vdevice {

class PtyDiscipline {
 public:
  // What the reader of the PTY gets.
  struct Input {
    enum class Kind {
      data,       // a line (ending in '\n', or cut short by Ctrl-D)
      eof,        // Ctrl-D on an empty line: read() returns 0
      interrupt,  // Ctrl-C: SIGINT to the foreground process
    };
    Kind kind = Kind::data;
    std::string bytes;
  };

  // Longest line kept (N_TTY's 4096): further bytes are dropped until the line ends.
  static constexpr std::size_t kMaxLine = 4096;

  // Feeds typed bytes; appends what the PTY echoes to echo and what the reader gets to input.
  void feed(std::span<const std::uint8_t> typed, std::vector<std::uint8_t>& echo,
            std::vector<Input>& input);

  // Appends bytes to out with output processing: each '\n' as "\r\n".
  static void translate_output(std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>& out);

  // The size set with the window-size packet (TIOCSWINSZ); 0x0 until then, as a new PTY.
  const protocol::WindowSize& size() const noexcept { return size_; }
  // Parses "ROWSxCOLS,XxY" (a trailing NUL allowed), as adbd reads it with sscanf; false
  // (size unchanged) when malformed.
  bool set_size(std::span<const std::uint8_t> text);

 private:
  std::string line_;
  protocol::WindowSize size_;
};

}  // namespace adbwire::vdevice
