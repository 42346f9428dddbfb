// Device::exec: "exec:" streams, raw bytes with no PTY and no shell protocol; on devices
// without exec: (Android before 5.0) the same bytes through the shell.
#include <string>
#include <utility>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "connection/collected_output.hpp"
#include "connection/shell_channel.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

// Undoes a PTY's output processing (ONLCR: every "\n" written became "\r\n"), which is exactly
// invertible: drop the '\r' of each "\r\n". A '\r' ending a chunk waits for the next one.
class PtyNewlines {
 public:
  explicit PtyNewlines(const OutputHandler& on_chunk) : on_chunk_(on_chunk) {}

  void operator()(std::span<const std::uint8_t> data) {
    out_.clear();
    for (const std::uint8_t byte : data) {
      if (held_cr_ && byte != '\n') out_.push_back('\r');
      held_cr_ = byte == '\r';
      if (!held_cr_) out_.push_back(byte);
    }
    if (!out_.empty() && on_chunk_) on_chunk_(out_);
  }

  void finish() {
    if (!held_cr_) return;
    held_cr_ = false;
    const std::uint8_t cr = '\r';
    if (on_chunk_) on_chunk_({&cr, 1});
  }

 private:
  const OutputHandler& on_chunk_;
  std::vector<std::uint8_t> out_;
  bool held_cr_ = false;
};

// A device that refuses exec: predates it (it came with Android 5.0). Shell protocol v2
// (Android 7.0+) runs the command raw; before that "shell:" gives every command a PTY, whose
// newline translation is undone here, so binary output (screencap) arrives intact.
void exec_through_shell(StreamOpener& opener, std::string_view command,
                        const OutputHandler& on_chunk, Deadline deadline,
                        detail::Failure& failure) {
  ShellOptions options;
  options.command = std::string(command);
  detail::ShellChannel channel = detail::open_shell(opener, options, deadline, failure);
  if (!channel.stream) return;
  if (channel.v2) {
    std::vector<std::uint8_t> close_stdin;
    protocol::append_shell_packet(close_stdin, protocol::ShellPacketId::close_stdin, {});
    detail::Failure ignored;
    channel.stream->write(close_stdin, deadline, ignored);
    // exec: merges stderr into the output (adbd gives the command one descriptor for both).
    detail::read_shell_output(channel, on_chunk, on_chunk, deadline, failure);
    return;
  }
  PtyNewlines newlines(on_chunk);
  detail::read_shell_output(
      channel, [&newlines](std::span<const std::uint8_t> data) { newlines(data); }, {}, deadline,
      failure);
  if (!failure) newlines.finish();
}

void run_exec(StreamOpener* opener, std::string_view command, const OutputHandler& on_chunk,
              Deadline deadline, detail::Failure& failure) {
  if (!opener) {
    failure = detail::moved_from_device();
    return;
  }
  auto stream = opener->open("exec:" + std::string(command), deadline, failure);
  if (!stream) {
    if (failure.code == errc::not_supported) {
      failure = {};
      exec_through_shell(*opener, command, on_chunk, deadline, failure);
    }
    return;
  }
  // The received payloads themselves reach the handler: no copy between the connection and it.
  std::vector<std::uint8_t> chunk;
  while (const std::size_t n = stream->read_chunk(chunk, kReadSize, deadline, failure)) {
    if (on_chunk) on_chunk(std::span<const std::uint8_t>(chunk.data(), n));
    if (failure) break;  // the handler stopped the command (a bound): the stream closes here
  }
}

}  // namespace

namespace detail {

std::string what_ran(std::string_view command) {
  return "`" + protocol::printable(command, 120) + "`";
}

void exec_into(Device& device, std::string_view command, const OutputHandler& on_chunk,
               Deadline deadline, Failure& failure) {
  run_exec(device.opener().get(), command, on_chunk, device.resolve(deadline), failure);
}

std::string exec_output(Device& device, std::string_view command, OutputBound bound,
                        Deadline deadline, Failure& failure) {
  std::string out;
  const std::string what = what_ran(command);
  BoundedOutput bounded(out, device.output_limits(), bound, what);
  run_exec(
      device.opener().get(), command,
      [&](std::span<const std::uint8_t> data) { bounded.append(data, failure); },
      device.resolve(deadline), failure);
  return out;
}

}  // namespace detail

std::string Device::exec(std::string_view command, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) {
    return detail::exec_output(*this, command, &OutputLimits::command, deadline, f);
  });
}

std::string Device::exec(std::string_view command, Deadline deadline, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) {
    return detail::exec_output(*this, command, &OutputLimits::command, deadline, f);
  });
}

void Device::exec(std::string_view command, const OutputHandler& on_chunk, Deadline deadline) {
  detail::Failure failure;
  run_exec(opener_.get(), command, on_chunk, resolve(deadline), failure);
  failure.throw_if_failed();
}

void Device::exec(std::string_view command, const OutputHandler& on_chunk, Deadline deadline,
                  std::error_code& error) {
  detail::Failure failure;
  run_exec(opener_.get(), command, on_chunk, resolve(deadline), failure);
  detail::report(std::move(failure), error);
}

}  // namespace adbwire
