// Device::shell: shell protocol v2 when both sides offer shell_v2, v1 otherwise (the channel
// itself is in shell_stream.cpp).
#include <string>
#include <utility>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "connection/collected_output.hpp"
#include "connection/shell_channel.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire {
namespace {

int run_shell(StreamOpener* opener, std::string_view command, const OutputHandler& on_stdout,
              const OutputHandler& on_stderr, Deadline deadline, detail::Failure& failure) {
  if (!opener) {
    failure = detail::moved_from_device();
    return -1;
  }
  ShellOptions options;
  options.command = std::string(command);
  detail::ShellChannel channel = detail::open_shell(*opener, options, deadline, failure);
  if (!channel.stream) return -1;
  if (channel.v2) {
    // The command gets an empty stdin, so `cat` and friends end instead of waiting. The
    // command may finish before this lands; any real trouble shows up in the reads below.
    std::vector<std::uint8_t> close_stdin;
    protocol::append_shell_packet(close_stdin, protocol::ShellPacketId::close_stdin, {});
    detail::Failure ignored;
    channel.stream->write(close_stdin, deadline, ignored);
  }
  return detail::read_shell_output(channel, on_stdout, on_stderr, deadline, failure);
}

}  // namespace

namespace detail {

ShellResult shell_output(Device& device, std::string_view command, OutputBound bound,
                         Deadline deadline, Failure& failure) {
  ShellResult result;
  // stdout and stderr share the one bound: together they are what the call holds.
  const std::size_t limit = device.output_limits().*bound;
  std::size_t held = 0;
  const std::string what = what_ran(command);
  const auto append_to = [&](std::string& out) {
    return [&](std::span<const std::uint8_t> data) {
      if (data.size() > limit - held) {
        failure.set(errc::limit_exceeded, over_limit_detail(what, device.output_limits(), bound));
        return;
      }
      held += data.size();
      out.append(reinterpret_cast<const char*>(data.data()), data.size());
    };
  };
  result.exit_code = run_shell(device.opener().get(), command, append_to(result.out),
                               append_to(result.err), device.resolve(deadline), failure);
  return result;
}

}  // namespace detail

ShellResult Device::shell(std::string_view command, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) {
    return detail::shell_output(*this, command, &OutputLimits::command, deadline, f);
  });
}

ShellResult Device::shell(std::string_view command, Deadline deadline, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) {
    return detail::shell_output(*this, command, &OutputLimits::command, deadline, f);
  });
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
  detail::report(std::move(failure), error);
  return exit_code;
}

}  // namespace adbwire
