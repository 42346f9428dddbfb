// A running shell with its stdin open: what `adb shell` does with a pipe or a terminal.
// Output is read on one thread while another writes stdin, resizes the terminal or closes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "adbwire/shell_options.hpp"

namespace adbwire {

// A terminal's size as TIOCGWINSZ gives it; the device's PTY gets it with TIOCSWINSZ.
using WindowSize = protocol::WindowSize;

// Move-only handle; the destructor closes the shell (the device hangs up its process).
// Thread safety: one thread runs wait() while others call write_stdin(), close_stdin(),
// resize() and close() (these are serialised inside, so whole packets never interleave).
// ADB streams have no half-close, so protocol v1 can carry stdin but never its end: a command
// that reads stdin to the end (cat) runs until it is closed. adb behaves the same.
class ShellStream {
 public:
  // Opens the shell on device ("shell,v2,{pty|raw}[,TERM=…]:COMMAND" or "shell:COMMAND"). The
  // deadline covers only the open. Errors as Device::open: not_supported (the device refused
  // the service), timeout, device_offline, closed. The stream does not outlive its usefulness
  // with the Device: closing the Device makes every call fail with closed.
  static ShellStream open(Device& device, const ShellOptions& options,
                          Deadline deadline = kDefaultDeadline);
  static ShellStream open(Device& device, const ShellOptions& options, Deadline deadline,
                          std::error_code& error);

  // An empty stream: every call fails with errc::closed.
  ShellStream() noexcept;
  ShellStream(ShellStream&&) noexcept;
  ShellStream& operator=(ShellStream&&) noexcept;
  ~ShellStream();

  // True when shell protocol v2 carries this shell: stderr apart, an exit status, and
  // close_stdin() and resize() reach the device.
  bool shell_protocol() const noexcept;

  // Sends bytes to the command's stdin (v2: stdin packets; v1: the bytes as they are), blocking
  // while the device has not taken earlier input (backpressure). Errors: closed (the command
  // ended, or close() was called), timeout (an unknown prefix was sent), device_offline.
  void write_stdin(std::span<const std::uint8_t> data, Deadline deadline = kDefaultDeadline);
  void write_stdin(std::span<const std::uint8_t> data, Deadline deadline, std::error_code& error);

  // Ends the command's stdin (v2: the close-stdin packet; the command reads end of file).
  // Returns false, sending nothing, on protocol v1, which cannot say it. Errors as write_stdin.
  // A PTY shell ignores it on the device (a PTY cannot close only its input): send the
  // terminal's EOF byte (Ctrl-D, 0x04) instead.
  bool close_stdin(Deadline deadline = kDefaultDeadline);
  bool close_stdin(Deadline deadline, std::error_code& error);

  // Tells the device's PTY the terminal size (v2 window-size packet, "ROWSxCOLS,XxY"). Returns
  // false, sending nothing, on protocol v1. Errors as write_stdin.
  bool resize(const WindowSize& size, Deadline deadline = kDefaultDeadline);
  bool resize(const WindowSize& size, Deadline deadline, std::error_code& error);

  // Delivers output until the shell ends and returns its exit status 0..255, or -1 on protocol
  // v1, which reports none. The spans are valid only during the call; a handler may throw: the
  // shell is closed and the exception propagates. Call once. Errors: timeout (the shell stays
  // open), protocol_error (malformed shell packets, or a v2 stream that ended without an exit
  // status), closed, device_offline; on error the return value is -1.
  int wait(const OutputHandler& on_stdout, const OutputHandler& on_stderr,
           Deadline deadline = kDefaultDeadline);
  int wait(const OutputHandler& on_stdout, const OutputHandler& on_stderr, Deadline deadline,
           std::error_code& error);

  // Ends the shell: a blocked wait() or write wakes with errc::closed. Idempotent, never
  // blocks, any thread.
  void close() noexcept;

 private:
  struct Impl;
  explicit ShellStream(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adbwire
