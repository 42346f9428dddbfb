#include "daemon/descriptor_transfers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <chrono>
#include <exception>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::daemon {
namespace {

// How often a pull looks whether its client hung up: a few times a second, not per chunk (a
// poll per 64 KiB, or per 4 KiB from an old device, is a system call the transfer does not need).
constexpr auto kHangUpCheck = std::chrono::milliseconds(50);

// Whether the client's socket was hung up (or broke): it no longer waits for the file, and its
// signal handler has removed the temporary file we write into.
bool hung_up(int client) {
  pollfd watch{client, POLLRDHUP, 0};
  return ::poll(&watch, 1, 0) > 0 && (watch.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

// run(), with what it throws (the hang-up check's cancelled, a broken connection) as failure.
template <typename Run>
bool guarded(detail::Failure& failure, Run run) {
  try {
    return run();
  } catch (const Error& error) {
    failure.set(error.code(), error.detail());
  } catch (const std::exception& error) {
    failure.set(errc::io_error, error.what());
  }
  return false;
}

}  // namespace

DescriptorTransfers::DescriptorTransfers(std::shared_ptr<HeldDevice> device, int client)
    : held_(std::move(device)), client_(client) {}

DescriptorTransfers::~DescriptorTransfers() = default;

bool DescriptorTransfers::pull(const PullInto& pull, int file, std::uint64_t& bytes,
                               std::string& answer, detail::Failure& failure) {
  struct stat st {};
  const int flags = ::fcntl(file, F_GETFL);
  if (::fstat(file, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0 ||
      (flags & O_ACCMODE) == O_RDONLY) {
    failure.set(errc::invalid_argument,
                "the adbwire daemon pulls only into a regular file the client opened for writing");
    return false;
  }
  PullOptions options;
  if (!parse_sync_compression(pull.compression, options.compression)) {
    failure.set(errc::invalid_argument, "the adbwire daemon knows no compression '" +
                                            protocol::printable(pull.compression, 40) + "'");
    return false;
  }
  options.limits.file_slack = pull.slack;
  if (pull.deadline_ms >= 0)
    options.deadline = deadline_after(std::chrono::milliseconds(pull.deadline_ms));
  options.progress = hang_up_check();
  SyncProgress progress;
  std::uint64_t wire_bytes = 0;
  const bool received = guarded(failure, [&] {
    detail::SyncChannel& sync = channel();
    return detail::receive_file(sync, {pull.remote, pull.local, pull.size}, file,
                                sync.choose(options.compression), options, progress, wire_bytes,
                                failure);
  });
  if (!received) return false;
  bytes = progress.file_bytes;
  answer = std::to_string(bytes) + " " + std::to_string(wire_bytes);
  return true;
}

bool DescriptorTransfers::push(const PushFrom& push, int file, std::uint64_t& bytes,
                               std::string& answer, detail::Failure& failure) {
  struct stat st {};
  const int flags = ::fcntl(file, F_GETFL);
  if (::fstat(file, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0 ||
      (flags & O_ACCMODE) == O_WRONLY) {
    failure.set(errc::invalid_argument,
                "the adbwire daemon pushes only from a regular file the client opened for reading");
    return false;
  }
  PushOptions options;
  if (!parse_sync_compression(push.compression, options.compression)) {
    failure.set(errc::invalid_argument, "the adbwire daemon knows no compression '" +
                                            protocol::printable(push.compression, 40) + "'");
    return false;
  }
  if (push.deadline_ms >= 0)
    options.deadline = deadline_after(std::chrono::milliseconds(push.deadline_ms));
  options.progress = hang_up_check();
  SyncProgress progress;
  std::uint64_t wire_bytes = 0;
  const bool sent = guarded(failure, [&] {
    detail::SyncChannel& sync = channel();
    return sync.ensure(options.deadline, failure) &&
           detail::send_file(sync,
                             {push.remote, push.local, push.mode, push.mtime,
                              static_cast<std::uint64_t>(st.st_size)},
                             file, sync.choose(options.compression), detail::send_compressed,
                             options, progress, wire_bytes, failure);
  });
  if (!sent) return false;
  bytes = progress.file_bytes;
  answer = std::to_string(bytes) + " " + std::to_string(wire_bytes);
  return true;
}

detail::SyncChannel& DescriptorTransfers::channel() {
  if (!channel_) {
    device_.emplace(held_->share({}, OutputLimits{}));
    channel_ = std::make_unique<detail::SyncChannel>(*device_);
  }
  return *channel_;
}

SyncProgressHandler DescriptorTransfers::hang_up_check() const {
  const int client = client_;
  return [client, next_check = Clock::now()](const SyncProgress&) mutable {
    const auto now = Clock::now();
    if (now < next_check) return;
    next_check = now + kHangUpCheck;
    if (hung_up(client)) throw Error(errc::cancelled, "the client went away before it was done");
  };
}

}  // namespace adbwire::daemon
