// receive_file: one file of a pull from the sync stream into a descriptor, decoded when the
// device compresses (sync_transfer.hpp). Apart from the plan and the tree (sync_pull.cpp): the
// CLI's front pulls through its daemon and links no codec.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::detail {
namespace {

using protocol::SyncId;
using protocol::SyncReply;

std::string shown(std::string_view text) { return protocol::printable(text, 600); }

// Writes all of bytes to fd; false with errno set on failure.
bool write_all(int fd, std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return true;
}

// Small pieces (a device with 4 KiB payloads sends a DATA per WRTE) gather here and reach the
// file kWriteBatch at a time: one write(2) per piece cost more than the network did.
constexpr std::size_t kWriteBatch = 256 * 1024;

// Writes to fd in batches of kWriteBatch; a piece at least that large goes straight through.
// expected: the file's announced size, so a small file's batch is no larger than the file.
class BatchedWriter {
 public:
  BatchedWriter(int fd, std::uint64_t expected)
      : fd_(fd),
        reserve_(static_cast<std::size_t>(std::min<std::uint64_t>(expected, kWriteBatch))) {}

  // false with errno set when a write failed.
  bool write(std::span<const std::uint8_t> bytes) {
    if (batch_.size() + bytes.size() > kWriteBatch && !flush()) return false;
    if (bytes.size() >= kWriteBatch) return write_all(fd_, bytes);
    if (batch_.capacity() == 0) batch_.reserve(reserve_);
    batch_.insert(batch_.end(), bytes.begin(), bytes.end());
    return true;
  }

  bool flush() {
    const bool ok = write_all(fd_, batch_);
    batch_.clear();
    return ok;
  }

 private:
  int fd_;
  std::size_t reserve_;
  std::vector<std::uint8_t> batch_;
};

std::string corrupt_detail(std::string_view remote, const SyncDecompressor& decoder,
                           std::string_view local, std::uint64_t written) {
  return "pulling " + shown(remote) + ": the device sent corrupt " +
         std::string(sync_codec_name(decoder.codec())) + "-compressed data: " + decoder.error() +
         " (after " + std::to_string(written) + " bytes; nothing was written to " + shown(local) +
         ")";
}

}  // namespace

bool receive_file(SyncChannel& channel, const FileFetch& fetch, int fd,
                  std::optional<SyncCodec> codec, const PullOptions& options,
                  SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
  const std::string_view remote = fetch.remote;
  const std::string_view local_text = fetch.local;
  if (!channel.ensure(options.deadline, failure)) return false;
  const std::uint64_t most = options.limits.max_file_bytes;
  if (fetch.size > most) {
    failure.set(errc::limit_exceeded,
                "pulling " + shown(remote) + ": the device announced " +
                    std::to_string(fetch.size) + " bytes, past SyncLimits::max_file_bytes (" +
                    std::to_string(most) + "); nothing was written to " + shown(local_text));
    return false;
  }
  std::unique_ptr<SyncDecompressor> decoder;
  if (codec) decoder = SyncDecompressor::make(*codec);
  if (channel.sendrecv_v2()) {
    const std::uint32_t flags = codec ? sync_codec_flag(*codec) : protocol::kSyncFlagNone;
    if (protocol::append_sync_recv_v2(channel.out(), remote, flags)) {
      failure.set(errc::invalid_argument, "device path longer than 1024 bytes: " + shown(remote));
      return false;
    }
    channel.expect(SyncId::rcv2);
  } else if (!channel.request(SyncId::recv, remote, failure)) {
    return false;
  }
  if (!channel.flush(options.deadline, failure)) return false;

  // The most this file may have: what the device announced, plus a little for a file that grew
  // meanwhile. A compression bomb announced as 10 bytes stops here, not when the disk is full.
  const std::uint64_t slack = options.limits.file_slack;
  const std::uint64_t allowed = slack >= most - fetch.size ? most : fetch.size + slack;
  std::uint64_t written = 0;
  bool sink_failed = false;
  BatchedWriter file(fd, fetch.size);
  const auto write_failed = [&] {
    failure.set(errc::io_error, "writing " + shown(local_text) + ": " + std::strerror(errno));
  };
  // Made once per file: a SyncSink built per chunk from this lambda would allocate each time.
  const SyncSink store = [&](std::span<const std::uint8_t> bytes) {
    sink_failed = true;
    if (bytes.size() > allowed - written && allowed == most) {
      failure.set(errc::limit_exceeded, "pulling " + shown(remote) +
                                            ": the device sent more than " + std::to_string(most) +
                                            " bytes, past SyncLimits::max_file_bytes; nothing "
                                            "was written to " +
                                            shown(local_text));
      return false;
    }
    if (bytes.size() > allowed - written) {
      failure.set(errc::limit_exceeded,
                  "pulling " + shown(remote) + ": the device announced " +
                      std::to_string(fetch.size) + " bytes and sent more than " +
                      std::to_string(allowed) + " (SyncLimits::file_slack allows " +
                      std::to_string(slack) +
                      " more, for a file that grows meanwhile): a compression bomb or a lying "
                      "device; nothing was written to " +
                      shown(local_text));
      return false;
    }
    if (!file.write(bytes)) {
      write_failed();
      return false;
    }
    sink_failed = false;
    written += bytes.size();
    progress.file_bytes += bytes.size();
    progress.total_bytes += bytes.size();
    return true;
  };
  for (SyncReply reply;;) {
    if (!channel.next(reply, options.deadline, failure)) {
      failure.detail = "pulling " + shown(remote) + ": " + failure.detail + " (after " +
                       std::to_string(written) + " bytes; nothing was written to " +
                       shown(local_text) + ")";
      return false;
    }
    if (reply.type == SyncReply::Type::done) {
      if (decoder && !decoder->finish()) {
        failure.set(errc::protocol_error, corrupt_detail(remote, *decoder, local_text, written));
        return false;
      }
      if (!file.flush()) {
        write_failed();
        return false;
      }
      return true;
    }
    if (reply.type == SyncReply::Type::fail) {
      failure.set(errc::command_failed, "pulling " + shown(remote) + ": " + shown(reply.message));
      return false;
    }
    wire_bytes += reply.data.size();
    const bool stored = decoder ? decoder->write(reply.data, store) : store(reply.data);
    if (!stored) {
      if (!sink_failed)
        failure.set(errc::protocol_error, corrupt_detail(remote, *decoder, local_text, written));
      channel.mark_broken();  // the rest of this file is still on its way
      return false;
    }
    if (options.progress) channel.call_progress(options.progress, progress);
  }
}

}  // namespace adbwire::detail
