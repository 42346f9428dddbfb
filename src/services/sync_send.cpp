// send_compressed: a pushed file's content compressed on the sync stream (sync_transfer.hpp).
// Apart from the plan and the sending loop (sync_push.cpp): the CLI's front pushes through its
// daemon and links no codec.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "adbwire/error.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::detail {
namespace {

constexpr std::size_t kReadBufferSize = 256 * 1024;

}  // namespace

bool send_compressed(SyncChannel& channel, int fd, std::string_view local, SyncCodec codec,
                     const PushOptions& options, SyncProgress& progress, std::uint64_t& wire_bytes,
                     Failure& failure, const std::function<void()>& flush_failed) {
  const std::unique_ptr<SyncCompressor> encoder = SyncCompressor::make(codec);
  bool send_failed = false;
  // A SyncSink once, not one converted from the lambda (and allocated) per read.
  const SyncSink send = [&](std::span<const std::uint8_t> chunk) {
    if (channel.out().size() + protocol::kSyncHeaderSize + chunk.size() > channel.write_limit() &&
        !channel.flush(options.deadline, failure)) {
      flush_failed();
      send_failed = true;
      return false;
    }
    protocol::append_sync_data(channel.out(), chunk);
    wire_bytes += chunk.size();
    return true;
  };
  const auto encoder_failed = [&] {
    if (!send_failed) {
      failure.set(errc::io_error, "compressing " + std::string(local) + ": " + encoder->error());
      channel.mark_broken();  // closing the stream makes the device drop the partial file
    }
    return false;
  };
  std::vector<std::uint8_t> buffer(kReadBufferSize);
  for (;;) {
    ssize_t n;
    do {
      n = ::read(fd, buffer.data(), buffer.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      failure.set(errc::io_error, "reading " + std::string(local) + ": " + std::strerror(errno));
      channel.mark_broken();
      return false;
    }
    if (n == 0) break;
    if (!encoder->write({buffer.data(), static_cast<std::size_t>(n)}, send))
      return encoder_failed();
    progress.file_bytes += static_cast<std::uint64_t>(n);
    progress.total_bytes += static_cast<std::uint64_t>(n);
    if (options.progress) channel.call_progress(options.progress, progress);
  }
  return encoder->finish(send) || encoder_failed();
}

}  // namespace adbwire::detail
