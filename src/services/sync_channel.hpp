// One "sync:" stream and its plumbing, shared by SyncClient's stat/list, pull and push: opening
// (and re-opening after a FAIL), batching requests into full writes, reading replies, the codec
// the device offers. Internal.
//
// Throughput: requests and file content are packed into writes of up to one negotiated payload
// (16 DATA chunks of 64 KiB make one 1 MiB WRTE). Memory: one read buffer and one write buffer,
// whatever the file sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/protocol/sync.hpp"
#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "compression/sync_compression.hpp"

namespace adbwire::detail {

class SyncChannel {
 public:
  explicit SyncChannel(Device& device);
  // Ends a stream still in good order with QUIT, as AOSP's host does, so adbd ends the session
  // itself instead of seeing the stream torn down under it (best effort, short deadline).
  ~SyncChannel();
  SyncChannel(const SyncChannel&) = delete;
  SyncChannel& operator=(const SyncChannel&) = delete;

  // Opens the stream unless it is open and in good order.
  bool ensure(Deadline deadline, Failure& failure);
  // Sends what requests and data were queued in out().
  bool flush(Deadline deadline, Failure& failure);
  // The next reply; reply.data stays valid until the next call.
  bool next(protocol::SyncReply& reply, Deadline deadline, Failure& failure);
  // Queues a request for path; invalid_argument when the path is over 1024 bytes.
  bool request(protocol::SyncId id, std::string_view path, Failure& failure);
  // Tells the reply reader what the queued request was (for requests queued directly in out()).
  void expect(protocol::SyncId id) { reader_.expect(id); }

  // stat follows links, lstat (follow = false) does not (without stat_v2 both are lstat).
  bool stat(std::string_view path, bool follow, RemoteStat& result, Deadline deadline,
            Failure& failure);
  // Lists path; each entry but "." and ".." goes to on_entry, which checks it
  // (check_listed_entry) and returns false to stop, having set failure: the stream is then
  // marked broken, as the rest of the listing is still on its way.
  bool list(std::string_view path,
            const std::function<bool(std::string&& name, const RemoteStat&)>& on_entry,
            Deadline deadline, Failure& failure);

  // The codec a transfer uses: only with sendrecv_v2 and the device's sendrecv_v2_<algorithm>;
  // "any" prefers zstd, then lz4, then brotli, as AOSP does.
  std::optional<SyncCodec> choose(SyncCompression wanted) const;

  // Calls a progress handler; one that throws must not leave the stream mid-file for the next
  // call, so the stream is marked broken before the exception goes on.
  void call_progress(const SyncProgressHandler& handler, const SyncProgress& progress);

  Device& device() noexcept { return *device_; }
  std::vector<std::uint8_t>& out() noexcept { return out_; }
  std::size_t write_limit() const noexcept { return write_limit_; }
  bool sendrecv_v2() const noexcept { return sendrecv_v2_; }
  // Mid-reply or after a FAIL: the next call opens a new stream.
  void mark_broken() noexcept { broken_ = true; }

 private:
  Device* device_;
  Stream stream_;
  protocol::SyncReplyReader reader_;
  std::vector<std::uint8_t> in_;
  std::span<const std::uint8_t> pending_;
  std::vector<std::uint8_t> out_;
  std::size_t write_limit_ = 0;
  bool stat_v2_ = false;
  bool ls_v2_ = false;
  bool sendrecv_v2_ = false;
  bool offered_[3] = {};  // by SyncCodec: the device lists sendrecv_v2_<algorithm>
  bool broken_ = false;
};

RemoteStat from_sync_stat(const protocol::SyncStat& s);
SyncCompression to_public(std::optional<SyncCodec> codec);

}  // namespace adbwire::detail
