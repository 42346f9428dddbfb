// Device::exec: "exec:" streams, raw bytes with no PTY and no shell protocol.
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire {
namespace {

constexpr std::size_t kReadSize = 64 * 1024;

void run_exec(detail::StreamOpener* opener, std::string_view command, const OutputHandler& on_chunk,
              Deadline deadline, detail::Failure& failure) {
  if (!opener) {
    failure = detail::moved_from_device();
    return;
  }
  auto stream = opener->open("exec:" + std::string(command), deadline, failure);
  if (!stream) return;
  std::vector<std::uint8_t> buffer(kReadSize);
  while (const std::size_t n = stream->read_some(buffer, deadline, failure)) {
    if (on_chunk) on_chunk(std::span<const std::uint8_t>(buffer.data(), n));
  }
}

std::string collect_exec(detail::StreamOpener* opener, std::string_view command, Deadline deadline,
                         detail::Failure& failure) {
  std::string out;
  run_exec(
      opener, command,
      [&out](std::span<const std::uint8_t> data) {
        out.append(reinterpret_cast<const char*>(data.data()), data.size());
      },
      deadline, failure);
  return out;
}

}  // namespace

std::string Device::exec(std::string_view command, Deadline deadline) {
  detail::Failure failure;
  std::string out = collect_exec(opener_.get(), command, resolve(deadline), failure);
  failure.throw_if_failed();
  return out;
}

std::string Device::exec(std::string_view command, Deadline deadline, std::error_code& error) {
  detail::Failure failure;
  std::string out = collect_exec(opener_.get(), command, resolve(deadline), failure);
  error = failure.code;
  return out;
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
  error = failure.code;
}

}  // namespace adbwire
