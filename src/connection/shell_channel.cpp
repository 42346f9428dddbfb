#include "connection/shell_channel.hpp"

#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/shell_v2.hpp"

namespace adbwire {
namespace detail {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& data) { return data; }

}  // namespace

std::string shell_service(const ShellOptions& options, bool v2) {
  if (!v2) return "shell:" + options.command;
  std::string service = "shell,v2";
  if (!options.term.empty()) service += ",TERM=" + options.term;
  service += options.pty ? ",pty:" : ",raw:";
  return service + options.command;
}

ShellChannel open_shell(StreamOpener& opener, const ShellOptions& options, Deadline deadline,
                        Failure& failure) {
  ShellChannel channel;
  channel.v2 = options.shell_protocol && opener.can_use_feature("shell_v2");
  channel.command = options.command;
  channel.stream = opener.open(shell_service(options, channel.v2), deadline, failure);
  return channel;
}

int read_shell_output(ShellChannel& channel, const OutputHandler& on_stdout,
                      const OutputHandler& on_stderr, Deadline deadline, Failure& failure) {
  std::vector<std::uint8_t> buffer(kReadSize);
  if (!channel.v2) {
    // v1: stdout and stderr arrive merged, and nothing reports the exit status.
    while (const std::size_t n = channel.stream->read_some(buffer, deadline, failure)) {
      if (on_stdout) on_stdout(std::span<const std::uint8_t>(buffer.data(), n));
      if (failure) break;  // a handler stopped the command (a bound)
    }
    return -1;
  }
  protocol::ShellReader reader;
  std::vector<protocol::ShellPiece> pieces;
  int exit_code = -1;
  while (const std::size_t n = channel.stream->read_some(buffer, deadline, failure)) {
    pieces.clear();
    if (reader.feed(std::span<const std::uint8_t>(buffer.data(), n), pieces)) {
      failure.set(errc::protocol_error, "malformed shell protocol output for '" + channel.command +
                                            "': " + reader.error_detail());
      return -1;
    }
    for (const protocol::ShellPiece& piece : pieces) {
      switch (piece.id) {
        case protocol::ShellPacketId::stdout_data:
          if (on_stdout) on_stdout(bytes_of(piece.data));
          break;
        case protocol::ShellPacketId::stderr_data:
          if (on_stderr) on_stderr(bytes_of(piece.data));
          break;
        case protocol::ShellPacketId::exit_status:
          exit_code = piece.data.front();
          break;
        default:
          break;  // a device has no business sending stdin or window sizes: ignored, as adb
      }
      if (failure) return -1;  // a handler stopped the command (a bound)
    }
  }
  if (failure) return -1;
  if (exit_code < 0) {
    failure.set(errc::protocol_error,
                "the shell stream for '" + channel.command +
                    "' ended without an exit status (the device hung up on it)");
  }
  return exit_code;
}

}  // namespace detail

}  // namespace adbwire
