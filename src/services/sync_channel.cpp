#include "services/sync_channel.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/protocol/printable.hpp"

namespace adbwire {

std::string_view to_string(SyncCompression compression) noexcept {
  switch (compression) {
    case SyncCompression::any:
      return "any";
    case SyncCompression::none:
      return "none";
    case SyncCompression::brotli:
      return "brotli";
    case SyncCompression::lz4:
      return "lz4";
    case SyncCompression::zstd:
      return "zstd";
  }
  return "?";
}

bool parse_sync_compression(std::string_view text, SyncCompression& out) noexcept {
  for (SyncCompression c : {SyncCompression::any, SyncCompression::none, SyncCompression::brotli,
                            SyncCompression::lz4, SyncCompression::zstd}) {
    if (text == to_string(c)) {
      out = c;
      return true;
    }
  }
  return false;
}

bool RemoteStat::is_directory() const noexcept { return S_ISDIR(mode); }
bool RemoteStat::is_regular() const noexcept { return S_ISREG(mode); }
bool RemoteStat::is_symlink() const noexcept { return S_ISLNK(mode); }

}  // namespace adbwire

namespace adbwire::detail {
namespace {

using protocol::SyncId;
using protocol::SyncParse;
using protocol::SyncReply;

constexpr std::size_t kReadBufferSize = 256 * 1024;
// How long closing a sync stream waits to hand its QUIT to the connection.
constexpr std::chrono::milliseconds kQuitTimeout{500};
// Device text quoted in a message is cut to this many bytes.
constexpr std::size_t kQuotedBytes = 600;

std::string shown(std::string_view text) { return protocol::printable(text, kQuotedBytes); }

}  // namespace

RemoteStat from_sync_stat(const protocol::SyncStat& s) {
  RemoteStat r;
  r.mode = s.mode;
  r.size = s.size;
  r.mtime = s.mtime;
  r.atime = s.atime;
  r.ctime = s.ctime;
  r.dev = s.dev;
  r.ino = s.ino;
  r.nlink = s.nlink;
  r.uid = s.uid;
  r.gid = s.gid;
  return r;
}

SyncCompression to_public(std::optional<SyncCodec> codec) {
  if (!codec) return SyncCompression::none;
  switch (*codec) {
    case SyncCodec::brotli:
      return SyncCompression::brotli;
    case SyncCodec::lz4:
      return SyncCompression::lz4;
    case SyncCodec::zstd:
      return SyncCompression::zstd;
  }
  return SyncCompression::none;
}

SyncChannel::SyncChannel(Device& device) : device_(&device) {
  stat_v2_ = device.has_feature("stat_v2");
  ls_v2_ = device.has_feature("ls_v2");
  sendrecv_v2_ = device.has_feature("sendrecv_v2");
  for (SyncCodec codec : {SyncCodec::brotli, SyncCodec::lz4, SyncCodec::zstd}) {
    offered_[static_cast<std::size_t>(codec)] =
        sendrecv_v2_ && device.has_feature(sync_codec_feature(codec));
  }
  const std::size_t payload = device.connection_info().max_payload;
  write_limit_ =
      std::max<std::size_t>(payload, 2 * protocol::kSyncHeaderSize + protocol::kSyncDataMax);
}

SyncChannel::~SyncChannel() {
  if (broken_ || !stream_.is_open()) return;
  out_.clear();
  protocol::append_sync_request(out_, SyncId::quit, {});
  std::error_code ignored;
  stream_.write(out_, deadline_after(kQuitTimeout), ignored);
}

bool SyncChannel::ensure(Deadline deadline, Failure& failure) {
  if (!broken_ && stream_.is_open()) return true;
  stream_.close();
  std::error_code error;
  stream_ = device_->open("sync:", deadline, error);
  if (error) {
    failure.set(error, "opening the device's sync: service: " + last_error_detail());
    return false;
  }
  reader_ = protocol::SyncReplyReader{};
  pending_ = {};
  out_.clear();
  broken_ = false;
  return true;
}

bool SyncChannel::flush(Deadline deadline, Failure& failure) {
  if (out_.empty()) return true;
  std::error_code error;
  stream_.write(out_, deadline, error);
  failure = detail::reported(error);
  out_.clear();
  if (failure) broken_ = true;
  return !failure;
}

bool SyncChannel::next(SyncReply& reply, Deadline deadline, Failure& failure) {
  // A call's own deadline holds while data flows too: a device that never stops sending (an
  // endless listing, a bomb) must not keep it going past it.
  if (deadline != kDefaultDeadline && deadline != kNoDeadline && Clock::now() >= deadline) {
    failure.set(errc::timeout, "the deadline passed while the device was still sending");
    broken_ = true;
    return false;
  }
  for (;;) {
    if (!pending_.empty()) {
      const SyncParse result = reader_.parse(pending_, reply);
      if (result == SyncParse::ready) {
        if (reply.type == SyncReply::Type::fail) broken_ = true;
        return true;
      }
      if (result == SyncParse::failed) {
        failure.set(errc::protocol_error,
                    "the device broke the sync protocol: " + shown(reader_.error_detail()));
        broken_ = true;
        return false;
      }
    }
    std::error_code error;
    // The received payload itself: the sync parser reads it in place, no copy in between.
    const std::size_t n = stream_.read_chunk(in_, kReadBufferSize, deadline, error);
    failure = detail::reported(error);
    if (failure) {
      broken_ = true;
      return false;
    }
    if (n == 0) {
      failure.set(errc::protocol_error, "the device ended the sync stream without answering");
      broken_ = true;
      return false;
    }
    pending_ = std::span<const std::uint8_t>(in_.data(), n);
  }
}

bool SyncChannel::request(SyncId id, std::string_view path, Failure& failure) {
  if (protocol::append_sync_request(out_, id, path)) {
    failure.set(errc::invalid_argument, "device path longer than 1024 bytes: " + shown(path));
    return false;
  }
  reader_.expect(id);
  return true;
}

std::optional<SyncCodec> SyncChannel::choose(SyncCompression wanted) const {
  const auto has = [&](SyncCodec c) { return offered_[static_cast<std::size_t>(c)]; };
  switch (wanted) {
    case SyncCompression::none:
      return std::nullopt;
    case SyncCompression::any:
      for (SyncCodec c : {SyncCodec::zstd, SyncCodec::lz4, SyncCodec::brotli}) {
        if (has(c)) return c;
      }
      return std::nullopt;
    case SyncCompression::brotli:
      return has(SyncCodec::brotli) ? std::optional(SyncCodec::brotli) : std::nullopt;
    case SyncCompression::lz4:
      return has(SyncCodec::lz4) ? std::optional(SyncCodec::lz4) : std::nullopt;
    case SyncCompression::zstd:
      return has(SyncCodec::zstd) ? std::optional(SyncCodec::zstd) : std::nullopt;
  }
  return std::nullopt;
}

bool SyncChannel::stat(std::string_view path, bool follow, RemoteStat& result, Deadline deadline,
                       Failure& failure) {
  if (!ensure(deadline, failure)) return false;
  const SyncId id = stat_v2_ ? (follow ? SyncId::sta2 : SyncId::lst2) : SyncId::stat;
  if (!request(id, path, failure) || !flush(deadline, failure)) return false;
  SyncReply reply;
  if (!next(reply, deadline, failure)) return false;
  if (reply.type == SyncReply::Type::fail) {
    failure.set(errc::command_failed, "stat " + shown(path) + ": " + shown(reply.message));
    return false;
  }
  if (stat_v2_ ? reply.stat.error != 0 : reply.stat.mode == 0) {
    const int error = stat_v2_ ? static_cast<int>(reply.stat.error) : ENOENT;
    const errc code = error == ENOENT || error == ENOTDIR ? errc::not_found
                      : error == EACCES || error == EPERM ? errc::permission_denied
                                                          : errc::command_failed;
    failure.set(code, shown(path) + " on the device: " + std::strerror(error));
    return false;
  }
  result = from_sync_stat(reply.stat);
  return true;
}

bool SyncChannel::list(std::string_view path,
                       const std::function<bool(std::string&& name, const RemoteStat&)>& on_entry,
                       Deadline deadline, Failure& failure) {
  if (!ensure(deadline, failure)) return false;
  if (!request(ls_v2_ ? SyncId::lis2 : SyncId::list, path, failure) || !flush(deadline, failure))
    return false;
  for (SyncReply reply;;) {
    if (!next(reply, deadline, failure)) return false;
    if (reply.type == SyncReply::Type::done) return true;
    if (reply.type == SyncReply::Type::fail) {
      failure.set(errc::command_failed, "listing " + shown(path) + ": " + shown(reply.message));
      return false;
    }
    if (reply.name == "." || reply.name == "..") continue;
    if (!on_entry(std::move(reply.name), from_sync_stat(reply.stat))) {
      broken_ = true;  // the rest of the listing is still on its way
      return false;
    }
  }
}

void SyncChannel::call_progress(const SyncProgressHandler& handler, const SyncProgress& progress) {
  try {
    handler(progress);
  } catch (...) {
    broken_ = true;
    throw;
  }
}

}  // namespace adbwire::detail
