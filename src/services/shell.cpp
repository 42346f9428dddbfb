// Device::shell: shell protocol v2 when both sides offer shell_v2, v1 otherwise.
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& data) { return data; }

// v1: stdout and stderr arrive merged, and nothing reports the exit status.
int run_shell_v1(detail::StreamOpener& opener, std::string_view command,
                 const OutputHandler& on_stdout, Deadline deadline, detail::Failure& failure) {
  auto stream = opener.open("shell:" + std::string(command), deadline, failure);
  if (!stream) return -1;
  std::vector<std::uint8_t> buffer(kReadSize);
  while (const std::size_t n = stream->read_some(buffer, deadline, failure)) {
    if (on_stdout) on_stdout(std::span<const std::uint8_t>(buffer.data(), n));
  }
  return -1;
}

int run_shell_v2(detail::StreamOpener& opener, std::string_view command,
                 const OutputHandler& on_stdout, const OutputHandler& on_stderr, Deadline deadline,
                 detail::Failure& failure) {
  auto stream = opener.open("shell,v2,raw:" + std::string(command), deadline, failure);
  if (!stream) return -1;

  // The command gets an empty stdin, so `cat` and friends end instead of waiting. The
  // command may finish before this lands; any real trouble shows up in the reads below.
  std::vector<std::uint8_t> close_stdin;
  protocol::append_shell_packet(close_stdin, protocol::ShellPacketId::close_stdin, {});
  detail::Failure ignored;
  stream->write(close_stdin, deadline, ignored);

  protocol::ShellReader reader;
  std::vector<protocol::ShellPiece> pieces;
  std::vector<std::uint8_t> buffer(kReadSize);
  int exit_code = -1;
  while (const std::size_t n = stream->read_some(buffer, deadline, failure)) {
    pieces.clear();
    if (reader.feed(std::span<const std::uint8_t>(buffer.data(), n), pieces)) {
      failure.set(errc::protocol_error, "malformed shell protocol output for '" +
                                            std::string(command) + "': " + reader.error_detail());
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
          if (!piece.data.empty()) exit_code = piece.data.front();
          break;
        default:
          break;  // stdin echoes and window sizes mean nothing to a non-interactive run
      }
    }
  }
  if (failure) return -1;
  if (exit_code < 0) {
    failure.set(errc::protocol_error,
                "the shell stream for '" + std::string(command) +
                    "' ended without an exit status (the device hung up on it)");
  }
  return exit_code;
}

int run_shell(detail::StreamOpener* opener, std::string_view command,
              const OutputHandler& on_stdout, const OutputHandler& on_stderr, Deadline deadline,
              detail::Failure& failure) {
  if (!opener) {
    failure = detail::moved_from_device();
    return -1;
  }
  if (opener->can_use_feature("shell_v2")) {
    return run_shell_v2(*opener, command, on_stdout, on_stderr, deadline, failure);
  }
  return run_shell_v1(*opener, command, on_stdout, deadline, failure);
}

ShellResult collect_shell(detail::StreamOpener* opener, std::string_view command, Deadline deadline,
                          detail::Failure& failure) {
  ShellResult result;
  auto append_to = [](std::string& out) {
    return [&out](std::span<const std::uint8_t> data) {
      out.append(reinterpret_cast<const char*>(data.data()), data.size());
    };
  };
  result.exit_code =
      run_shell(opener, command, append_to(result.out), append_to(result.err), deadline, failure);
  return result;
}

}  // namespace

ShellResult Device::shell(std::string_view command, Deadline deadline) {
  detail::Failure failure;
  ShellResult result = collect_shell(opener_.get(), command, resolve(deadline), failure);
  failure.throw_if_failed();
  return result;
}

ShellResult Device::shell(std::string_view command, Deadline deadline, std::error_code& error) {
  detail::Failure failure;
  ShellResult result = collect_shell(opener_.get(), command, resolve(deadline), failure);
  error = failure.code;
  return result;
}

int Device::shell(std::string_view command, const OutputHandler& on_stdout,
                  const OutputHandler& on_stderr, Deadline deadline) {
  detail::Failure failure;
  const int exit_code =
      run_shell(opener_.get(), command, on_stdout, on_stderr, resolve(deadline), failure);
  failure.throw_if_failed();
  return exit_code;
}

int Device::shell(std::string_view command, const OutputHandler& on_stdout,
                  const OutputHandler& on_stderr, Deadline deadline, std::error_code& error) {
  detail::Failure failure;
  const int exit_code =
      run_shell(opener_.get(), command, on_stdout, on_stderr, resolve(deadline), failure);
  error = failure.code;
  return exit_code;
}

}  // namespace adbwire
