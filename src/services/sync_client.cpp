// SyncClient: pull/push/stat/list over one "sync:" stream (protocol/sync.md).
//
// Throughput: requests and file content are packed into writes of up to one negotiated
// payload (16 DATA chunks of 64 KiB make one 1 MiB WRTE), and a push of many files keeps
// up to kMaxDeferred acknowledgements outstanding instead of waiting for each, as AOSP does.
// Memory: one read buffer and one write buffer, whatever the file sizes (plus, for a
// compressed transfer, one codec with its bounded buffers: services/sync_compression.hpp).
//
// Compression (SND2/RCV2 flags) is chosen per call from PullOptions/PushOptions::compression
// and the device's sendrecv_v2_<algorithm> features; each file is one compressed stream.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/sync.hpp"
#include "adbwire/sync.hpp"
#include "services/sync_compression.hpp"
#include "transport/failure.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using detail::Failure;
using detail::SyncCodec;
using protocol::SyncId;
using protocol::SyncParse;
using protocol::SyncReply;

constexpr std::size_t kReadBufferSize = 256 * 1024;
// How long closing a sync stream waits to hand its QUIT to the connection.
constexpr std::chrono::milliseconds kQuitTimeout{500};
// adbd's socket buffer holds this many acknowledgements (AOSP ReadAcknowledgements).
constexpr std::size_t kMaxDeferred = 128;

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

std::string errno_text(int error) { return std::strerror(error); }

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

// "/a/b/" → "b"; "/" → "".
std::string remote_basename(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string remote_join(std::string_view folder, std::string_view name) {
  std::string joined(folder);
  if (joined.empty() || joined.back() != '/') joined += '/';
  joined += name;
  return joined;
}

// Single quotes for the device's sh: ' becomes '\''.
std::string shell_quote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// Runs a throwing Stream call, turning its Error into failure (code plus detail).
template <typename F>
void guarded(Failure& failure, F&& op) {
  try {
    op();
  } catch (const Error& error) {
    failure.set(error.code(), error.what());
  }
}

struct PullItem {
  std::string remote;
  fs::path local;
  RemoteStat stat;
};

struct PushItem {
  fs::path local;
  std::string remote;
  std::uint32_t mode = 0;
  std::int64_t mtime = 0;
  std::uint64_t size = 0;
};

// Closes and removes a pull's temporary file unless it was renamed into place.
class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  // A hidden file beside final: ".NAME.adbwire-XXXXXX".
  bool create(const fs::path& final_path, Failure& failure) {
    fs::path parent = final_path.parent_path();
    std::string pattern =
        (parent / ("." + final_path.filename().string() + ".adbwire-XXXXXX")).string();
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) {
      failure.set(errc::io_error, "cannot create a file in " +
                                      (parent.empty() ? std::string(".") : parent.string()) + ": " +
                                      errno_text(errno));
      return false;
    }
    path_ = pattern;
    return true;
  }

  int fd() const { return fd_; }

  bool commit(const fs::path& final_path, Failure& failure) {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
      failure.set(errc::io_error, "writing " + final_path.string() + ": " + errno_text(errno));
      return false;
    }
    if (::rename(path_.c_str(), final_path.c_str()) != 0) {
      failure.set(errc::io_error, "cannot rename " + path_ + " to " + final_path.string() + ": " +
                                      errno_text(errno));
      return false;
    }
    path_.clear();
    return true;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace

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

struct SyncClient::Impl {
  // A sync stream still in good order is ended with QUIT before it closes, as AOSP's host does
  // (SyncConnection's destructor): adbd then ends the session itself instead of seeing the
  // stream torn down under it. Best effort, within a short deadline; a failure changes nothing.
  ~Impl() {
    if (broken || !stream.is_open()) return;
    out.clear();
    protocol::append_sync_request(out, SyncId::quit, {});
    std::error_code ignored;
    stream.write(out, deadline_after(kQuitTimeout), ignored);
  }

  explicit Impl(Device& d) : device(&d) {
    stat_v2 = d.has_feature("stat_v2");
    ls_v2 = d.has_feature("ls_v2");
    sendrecv_v2 = d.has_feature("sendrecv_v2");
    for (SyncCodec codec : {SyncCodec::brotli, SyncCodec::lz4, SyncCodec::zstd}) {
      offered[static_cast<std::size_t>(codec)] =
          sendrecv_v2 && d.has_feature(detail::sync_codec_feature(codec));
    }
    const std::size_t payload = d.connection_info().max_payload;
    write_limit =
        std::max<std::size_t>(payload, 2 * protocol::kSyncHeaderSize + protocol::kSyncDataMax);
    in.resize(kReadBufferSize);
  }

  // ---- the stream

  bool ensure(Deadline deadline, Failure& failure) {
    if (!broken && stream.is_open()) return true;
    stream.close();
    std::error_code error;
    stream = device->open("sync:", deadline, error);
    if (error) {
      failure.set(error, "opening the device's sync: service: " + error.message());
      return false;
    }
    reader = protocol::SyncReplyReader{};
    pending = {};
    out.clear();
    broken = false;
    return true;
  }

  bool flush(Deadline deadline, Failure& failure) {
    if (out.empty()) return true;
    guarded(failure, [&] { stream.write(out, deadline); });
    out.clear();
    if (failure) broken = true;
    return !failure;
  }

  // The next reply; reply.data stays valid until the next call.
  bool next(SyncReply& reply, Deadline deadline, Failure& failure) {
    for (;;) {
      if (!pending.empty()) {
        const SyncParse result = reader.parse(pending, reply);
        if (result == SyncParse::ready) {
          if (reply.type == SyncReply::Type::fail) broken = true;
          return true;
        }
        if (result == SyncParse::failed) {
          failure.set(errc::protocol_error,
                      "the device broke the sync protocol: " + reader.error_detail());
          broken = true;
          return false;
        }
      }
      std::size_t n = 0;
      guarded(failure, [&] { n = stream.read_some(in, deadline); });
      if (failure) {
        broken = true;
        return false;
      }
      if (n == 0) {
        failure.set(errc::protocol_error, "the device ended the sync stream without answering");
        broken = true;
        return false;
      }
      pending = std::span<const std::uint8_t>(in.data(), n);
    }
  }

  bool request(SyncId id, std::string_view path, Failure& failure) {
    if (protocol::append_sync_request(out, id, path)) {
      failure.set(errc::invalid_argument,
                  "device path longer than 1024 bytes: " + std::string(path));
      return false;
    }
    reader.expect(id);
    return true;
  }

  // The codec a transfer uses: only with sendrecv_v2 and the device's sendrecv_v2_<algo>;
  // "any" prefers zstd, then lz4, then brotli, as AOSP does.
  std::optional<SyncCodec> choose(SyncCompression wanted) const {
    const auto has = [&](SyncCodec c) { return offered[static_cast<std::size_t>(c)]; };
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

  // ---- stat / list

  bool stat(std::string_view path, bool follow, RemoteStat& result, Deadline deadline,
            Failure& failure) {
    if (!ensure(deadline, failure)) return false;
    const SyncId id = stat_v2 ? (follow ? SyncId::sta2 : SyncId::lst2) : SyncId::stat;
    if (!request(id, path, failure) || !flush(deadline, failure)) return false;
    SyncReply reply;
    if (!next(reply, deadline, failure)) return false;
    if (reply.type == SyncReply::Type::fail) {
      failure.set(errc::command_failed, "stat " + std::string(path) + ": " + reply.message);
      return false;
    }
    if (stat_v2 ? reply.stat.error != 0 : reply.stat.mode == 0) {
      const int error = stat_v2 ? static_cast<int>(reply.stat.error) : ENOENT;
      const errc code = error == ENOENT || error == ENOTDIR ? errc::not_found
                        : error == EACCES || error == EPERM ? errc::permission_denied
                                                            : errc::command_failed;
      failure.set(code, std::string(path) + " on the device: " + errno_text(error));
      return false;
    }
    result = from_sync_stat(reply.stat);
    return true;
  }

  bool list(std::string_view path, std::vector<RemoteEntry>& entries, Deadline deadline,
            Failure& failure) {
    if (!ensure(deadline, failure)) return false;
    if (!request(ls_v2 ? SyncId::lis2 : SyncId::list, path, failure) || !flush(deadline, failure))
      return false;
    for (SyncReply reply;;) {
      if (!next(reply, deadline, failure)) return false;
      if (reply.type == SyncReply::Type::done) return true;
      if (reply.type == SyncReply::Type::fail) {
        failure.set(errc::command_failed, "listing " + std::string(path) + ": " + reply.message);
        return false;
      }
      if (reply.name == "." || reply.name == "..") continue;
      entries.push_back({std::move(reply.name), from_sync_stat(reply.stat)});
    }
  }

  // ---- pull

  // Adds remote (a file or a whole folder) to the plan, to be written at local.
  bool plan_pull(const std::string& remote, const fs::path& local, std::vector<PullItem>& files,
                 std::vector<PullItem>& folders, TransferStats& stats, Deadline deadline,
                 Failure& failure) {
    RemoteStat st;
    if (!stat(remote, true, st, deadline, failure)) return false;
    if (!st.is_directory()) {
      files.push_back({remote, local, st});
      return true;
    }
    folders.push_back({remote, local, st});
    std::vector<RemoteEntry> entries;
    if (!list(remote, entries, deadline, failure)) return false;
    for (RemoteEntry& entry : entries) {
      const std::string child = remote_join(remote, entry.name);
      const fs::path child_local = local / entry.name;
      if (entry.stat.is_directory()) {
        if (!plan_pull(child, child_local, files, folders, stats, deadline, failure)) return false;
      } else if (entry.stat.is_regular()) {
        files.push_back({child, child_local, entry.stat});
      } else if (entry.stat.is_symlink()) {
        // A link to a file is pulled as the file; links to folders are not followed (loops).
        RemoteStat target;
        if (stat(child, true, target, deadline, failure) && target.is_regular()) {
          files.push_back({child, child_local, target});
        } else if (!failure || failure.code == errc::not_found ||
                   failure.code == errc::permission_denied) {
          ++stats.skipped;  // a link to a folder, or a dangling one
          failure = {};
        } else {
          return false;
        }
      } else {
        ++stats.skipped;
      }
    }
    return true;
  }

  bool pull_file(const PullItem& item, const PullOptions& options, std::optional<SyncCodec> codec,
                 SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    if (!ensure(options.deadline, failure)) return false;
    TempFile temp;
    if (!temp.create(item.local, failure)) return false;
    std::unique_ptr<detail::SyncDecompressor> decoder;
    if (codec) decoder = detail::SyncDecompressor::make(*codec);
    if (sendrecv_v2) {
      const std::uint32_t flags = codec ? detail::sync_codec_flag(*codec) : protocol::kSyncFlagNone;
      if (protocol::append_sync_recv_v2(out, item.remote, flags)) {
        failure.set(errc::invalid_argument, "device path longer than 1024 bytes: " + item.remote);
        return false;
      }
      reader.expect(SyncId::rcv2);
    } else if (!request(SyncId::recv, item.remote, failure)) {
      return false;
    }
    if (!flush(options.deadline, failure)) return false;

    const std::string local_text = item.local.string();
    progress.remote = item.remote;
    progress.local = local_text;
    progress.file_bytes = 0;
    progress.file_size = item.stat.size;
    bool disk_failed = false;
    // Made once per file: a SyncSink built per chunk from this lambda would allocate each time.
    const detail::SyncSink store = [&](std::span<const std::uint8_t> bytes) {
      if (!write_all(temp.fd(), bytes)) {
        failure.set(errc::io_error, "writing " + local_text + ": " + errno_text(errno));
        disk_failed = true;
        return false;
      }
      progress.file_bytes += bytes.size();
      progress.total_bytes += bytes.size();
      return true;
    };
    for (SyncReply reply;;) {
      if (!next(reply, options.deadline, failure)) {
        failure.detail = "pulling " + item.remote + ": " + failure.detail + " (after " +
                         std::to_string(progress.file_bytes) + " bytes; nothing was written to " +
                         local_text + ")";
        return false;
      }
      if (reply.type == SyncReply::Type::done) {
        if (decoder && !decoder->finish()) {
          failure.set(errc::protocol_error, corrupt_detail(item, *decoder, progress, local_text));
          return false;
        }
        break;
      }
      if (reply.type == SyncReply::Type::fail) {
        failure.set(errc::command_failed, "pulling " + item.remote + ": " + reply.message);
        return false;
      }
      wire_bytes += reply.data.size();
      const bool stored = decoder ? decoder->write(reply.data, store) : store(reply.data);
      if (!stored) {
        if (!disk_failed)
          failure.set(errc::protocol_error, corrupt_detail(item, *decoder, progress, local_text));
        broken = true;  // the rest of this file is still on its way
        return false;
      }
      if (options.progress) call_progress(options.progress, progress);
    }
    if (options.keep_attributes) {
      ::fchmod(temp.fd(), static_cast<mode_t>(item.stat.mode & 07777));
      const timespec times[2] = {{static_cast<time_t>(item.stat.mtime), 0},
                                 {static_cast<time_t>(item.stat.mtime), 0}};
      ::futimens(temp.fd(), times);
    } else {
      ::fchmod(temp.fd(), 0644);
    }
    if (!temp.commit(item.local, failure)) return false;
    ++progress.files_done;
    if (options.progress) call_progress(options.progress, progress);
    return true;
  }

  static std::string corrupt_detail(const PullItem& item, const detail::SyncDecompressor& decoder,
                                    const SyncProgress& progress, const std::string& local_text) {
    return "pulling " + item.remote + ": the device sent corrupt " +
           std::string(detail::sync_codec_name(decoder.codec())) +
           "-compressed data: " + decoder.error() + " (after " +
           std::to_string(progress.file_bytes) + " bytes; nothing was written to " + local_text +
           ")";
  }

  // A throwing handler must not leave the stream mid-file for the next call.
  void call_progress(const SyncProgressHandler& handler, const SyncProgress& progress) {
    try {
      handler(progress);
    } catch (...) {
      broken = true;
      throw;
    }
  }

  TransferStats pull(const std::vector<std::string>& remotes, const fs::path& local,
                     const PullOptions& options, Failure& failure) {
    const auto start = Clock::now();
    TransferStats stats;
    std::error_code ignored;
    const bool local_is_folder = fs::is_directory(local, ignored);
    if (remotes.empty() || (remotes.size() > 1 && !local_is_folder)) {
      failure.set(errc::invalid_argument, remotes.empty()
                                              ? std::string("pull needs at least one remote path")
                                              : "pulling " + std::to_string(remotes.size()) +
                                                    " paths needs an existing local folder, not " +
                                                    local.string());
      return stats;
    }
    std::vector<PullItem> files;
    std::vector<PullItem> folders;
    for (const std::string& remote : remotes) {
      const fs::path target = local_is_folder ? local / remote_basename(remote) : local;
      if (!plan_pull(remote, target, files, folders, stats, options.deadline, failure))
        return stats;
    }
    SyncProgress progress;
    progress.files_total = files.size();
    for (const PullItem& file : files) progress.total_size += file.stat.size;
    const std::optional<SyncCodec> codec = choose(options.compression);
    stats.compression = to_public(codec);

    for (const PullItem& folder : folders) {
      std::error_code error;
      fs::create_directories(folder.local, error);
      if (error) {
        failure.set(errc::io_error,
                    "cannot create folder " + folder.local.string() + ": " + error.message());
        return stats;
      }
    }
    for (const PullItem& file : files) {
      const fs::path parent = file.local.parent_path();
      std::error_code error;
      if (!parent.empty()) fs::create_directories(parent, error);
      if (error) {
        failure.set(errc::io_error,
                    "cannot create folder " + parent.string() + ": " + error.message());
        return stats;
      }
      if (!pull_file(file, options, codec, progress, stats.wire_bytes, failure)) break;
      ++stats.files;
      stats.bytes += progress.file_bytes;
    }
    // Folder attributes last, deepest first: a read-only folder must not block its files.
    if (!failure && options.keep_attributes) {
      for (auto it = folders.rbegin(); it != folders.rend(); ++it) {
        ::chmod(it->local.c_str(), static_cast<mode_t>(it->stat.mode & 07777));
        const timespec times[2] = {{static_cast<time_t>(it->stat.mtime), 0},
                                   {static_cast<time_t>(it->stat.mtime), 0}};
        ::utimensat(AT_FDCWD, it->local.c_str(), times, 0);
      }
    }
    stats.elapsed = Clock::now() - start;
    return stats;
  }

  // ---- push

  bool plan_push(const fs::path& local, const std::string& remote, std::vector<PushItem>& files,
                 std::vector<std::string>& empty_folders, TransferStats& stats, Failure& failure) {
    struct stat st {};
    if (::lstat(local.c_str(), &st) != 0) {
      failure.set(errno == ENOENT ? errc::not_found : errc::io_error,
                  local.string() + ": " + errno_text(errno));
      return false;
    }
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
      files.push_back(
          {local, remote, st.st_mode, st.st_mtime, static_cast<std::uint64_t>(st.st_size)});
      return true;
    }
    if (!S_ISDIR(st.st_mode)) {
      ++stats.skipped;
      return true;
    }
    std::error_code error;
    bool empty = true;
    for (const fs::directory_entry& entry : fs::directory_iterator(local, error)) {
      empty = false;
      if (!plan_push(entry.path(), remote_join(remote, entry.path().filename().string()), files,
                     empty_folders, stats, failure)) {
        return false;
      }
    }
    if (error) {
      failure.set(errc::io_error, "cannot read folder " + local.string() + ": " + error.message());
      return false;
    }
    if (empty) empty_folders.push_back(remote);
    return true;
  }

  // Reads one push acknowledgement; names the file on a FAIL.
  bool read_ack(std::deque<const PushItem*>& waiting, Deadline deadline, Failure& failure) {
    SyncReply reply;
    if (!next(reply, deadline, failure)) return false;
    const PushItem* item = waiting.front();
    waiting.pop_front();
    if (reply.type == SyncReply::Type::fail) {
      failure.set(errc::command_failed,
                  "pushing " + item->local.string() + " to " + item->remote + ": " + reply.message);
      return false;
    }
    return true;
  }

  // After a failed write the device may have said why before it closed the stream.
  void explain_write_failure(std::deque<const PushItem*>& waiting, Deadline deadline,
                             Failure& failure) {
    Failure reason;
    while (!waiting.empty() && read_ack(waiting, deadline, reason)) {
    }
    if (reason.code == errc::command_failed) failure = std::move(reason);
  }

  bool push_file(const PushItem& item, std::deque<const PushItem*>& waiting,
                 const PushOptions& options, std::optional<SyncCodec> wanted,
                 SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    // A link's target goes plain, as AOSP sends small files.
    const bool compressed = wanted.has_value() && !S_ISLNK(item.mode);
    const SyncCodec codec = wanted.value_or(SyncCodec::zstd);
    const int fd = S_ISLNK(item.mode) ? -1 : ::open(item.local.c_str(), O_RDONLY | O_CLOEXEC);
    if (!S_ISLNK(item.mode) && fd < 0) {
      failure.set(errc::io_error, "cannot read " + item.local.string() + ": " + errno_text(errno));
      return false;
    }
    struct Closer {
      int fd;
      ~Closer() {
        if (fd >= 0) ::close(fd);
      }
    } closer{fd};

    const std::uint32_t flags =
        compressed ? detail::sync_codec_flag(codec) : protocol::kSyncFlagNone;
    const std::error_code too_long =
        sendrecv_v2 ? protocol::append_sync_send_v2(out, item.remote, item.mode, flags)
                    : protocol::append_sync_send_v1(out, item.remote, item.mode);
    if (too_long) {
      failure.set(errc::invalid_argument, "device path longer than 1024 bytes: " + item.remote);
      return false;
    }
    reader.expect(sendrecv_v2 ? SyncId::snd2 : SyncId::send);
    waiting.push_back(&item);

    const std::string local_text = item.local.string();
    progress.remote = item.remote;
    progress.local = local_text;
    progress.file_bytes = 0;
    progress.file_size = item.size;
    if (S_ISLNK(item.mode)) {
      std::error_code error;
      std::string target = fs::read_symlink(item.local, error).string();
      if (error) {
        failure.set(errc::io_error, "cannot read link " + local_text + ": " + error.message());
        broken = true;  // a SEND without its DONE is on its way
        return false;
      }
      target.push_back('\0');
      protocol::append_sync_data(
          out, {reinterpret_cast<const std::uint8_t*>(target.data()), target.size()});
      wire_bytes += target.size();
    } else if (compressed) {
      if (!push_compressed(fd, item, codec, waiting, options, progress, wire_bytes, failure))
        return false;
    } else {
      for (;;) {
        if (out.size() + protocol::kSyncHeaderSize + protocol::kSyncDataMax > write_limit &&
            !flush(options.deadline, failure)) {
          explain_write_failure(waiting, options.deadline, failure);
          return false;
        }
        const std::size_t at = out.size();
        out.resize(at + protocol::kSyncHeaderSize + protocol::kSyncDataMax);
        ssize_t n;
        do {
          n = ::read(fd, out.data() + at + protocol::kSyncHeaderSize, protocol::kSyncDataMax);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
          failure.set(errc::io_error, "reading " + local_text + ": " + errno_text(errno));
          out.resize(at);
          broken = true;  // closing the stream makes the device drop the partial file
          return false;
        }
        if (n == 0) {
          out.resize(at);
          break;
        }
        out.resize(at + protocol::kSyncHeaderSize +
                   static_cast<std::size_t>(n));  // shrinking keeps the bytes
        protocol::write_sync_header(std::span<std::uint8_t, protocol::kSyncHeaderSize>(
                                        out.data() + at, protocol::kSyncHeaderSize),
                                    SyncId::data, static_cast<std::uint32_t>(n));
        progress.file_bytes += static_cast<std::uint64_t>(n);
        progress.total_bytes += static_cast<std::uint64_t>(n);
        wire_bytes += static_cast<std::uint64_t>(n);
        if (options.progress) call_progress(options.progress, progress);
      }
    }
    protocol::append_sync_done(out, static_cast<std::uint32_t>(item.mtime));
    while (waiting.size() >= kMaxDeferred) {
      if (!flush(options.deadline, failure)) {
        explain_write_failure(waiting, options.deadline, failure);
        return false;
      }
      if (!read_ack(waiting, options.deadline, failure)) return false;
    }
    ++progress.files_done;
    return true;
  }

  // The file's content as one compressed stream in full DATA chunks.
  bool push_compressed(int fd, const PushItem& item, SyncCodec codec,
                       std::deque<const PushItem*>& waiting, const PushOptions& options,
                       SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    const std::unique_ptr<detail::SyncCompressor> encoder = detail::SyncCompressor::make(codec);
    bool send_failed = false;
    // A SyncSink once, not one converted from the lambda (and allocated) per read.
    const detail::SyncSink send = [&](std::span<const std::uint8_t> chunk) {
      if (out.size() + protocol::kSyncHeaderSize + chunk.size() > write_limit &&
          !flush(options.deadline, failure)) {
        explain_write_failure(waiting, options.deadline, failure);
        send_failed = true;
        return false;
      }
      protocol::append_sync_data(out, chunk);
      wire_bytes += chunk.size();
      return true;
    };
    const auto encoder_failed = [&] {
      if (!send_failed) {
        failure.set(errc::io_error, "compressing " + item.local.string() + ": " + encoder->error());
        broken = true;  // closing the stream makes the device drop the partial file
      }
      return false;
    };
    file_buffer.resize(kReadBufferSize);
    for (;;) {
      ssize_t n;
      do {
        n = ::read(fd, file_buffer.data(), file_buffer.size());
      } while (n < 0 && errno == EINTR);
      if (n < 0) {
        failure.set(errc::io_error, "reading " + item.local.string() + ": " + errno_text(errno));
        broken = true;
        return false;
      }
      if (n == 0) break;
      if (!encoder->write({file_buffer.data(), static_cast<std::size_t>(n)}, send))
        return encoder_failed();
      progress.file_bytes += static_cast<std::uint64_t>(n);
      progress.total_bytes += static_cast<std::uint64_t>(n);
      if (options.progress) call_progress(options.progress, progress);
    }
    return encoder->finish(send) || encoder_failed();
  }

  TransferStats push(const std::vector<fs::path>& locals, std::string_view remote,
                     const PushOptions& options, Failure& failure) {
    const auto start = Clock::now();
    TransferStats stats;
    if (locals.empty()) {
      failure.set(errc::invalid_argument, "push needs at least one local path");
      return stats;
    }
    RemoteStat remote_stat;
    Failure remote_failure;
    const bool remote_exists = stat(remote, true, remote_stat, options.deadline, remote_failure);
    if (!remote_exists && remote_failure.code != errc::not_found) {
      failure = std::move(remote_failure);
      return stats;
    }
    const bool remote_is_folder =
        (remote_exists && remote_stat.is_directory()) || remote.ends_with('/');
    if (locals.size() > 1 && !remote_is_folder) {
      failure.set(errc::invalid_argument,
                  "pushing " + std::to_string(locals.size()) +
                      " paths needs an existing folder on the device, not " + std::string(remote));
      return stats;
    }
    std::vector<PushItem> files;
    std::vector<std::string> empty_folders;
    for (const fs::path& local : locals) {
      const std::string target =
          remote_is_folder ? remote_join(remote, local.filename().string()) : std::string(remote);
      if (!plan_push(local, target, files, empty_folders, stats, failure)) return stats;
    }
    SyncProgress progress;
    progress.files_total = files.size();
    for (const PushItem& file : files) progress.total_size += file.size;

    if (!ensure(options.deadline, failure)) return stats;
    const std::optional<SyncCodec> codec = choose(options.compression);
    stats.compression = to_public(codec);
    std::deque<const PushItem*> waiting;
    std::size_t sent = 0;
    std::uint64_t wire_bytes = 0;
    for (const PushItem& file : files) {
      if (!push_file(file, waiting, options, codec, progress, wire_bytes, failure)) break;
      ++sent;
    }
    if (!failure && !flush(options.deadline, failure))
      explain_write_failure(waiting, options.deadline, failure);
    while (!failure && !waiting.empty()) read_ack(waiting, options.deadline, failure);
    if (!failure) {
      stats.files = sent;
      stats.bytes = progress.total_bytes;
      stats.wire_bytes = wire_bytes;
    }
    if (!failure && options.progress) {
      progress.files_done = files.size();
      call_progress(options.progress, progress);
    }
    if (!failure && !empty_folders.empty()) {
      std::string command = "mkdir -p";
      for (const std::string& folder : empty_folders) command += " " + shell_quote(folder);
      std::error_code error;
      const ShellResult result = device->shell(command, options.deadline, error);
      if (error) {
        failure.set(error, "creating empty folders on the device: " + error.message());
      } else if (result.exit_code > 0) {
        failure.set(errc::command_failed,
                    "creating empty folders on the device: " + result.err + result.out);
      }
    }
    stats.elapsed = Clock::now() - start;
    return stats;
  }

  // Runs op, keeping last_error and the error_code/throwing pair consistent.
  template <typename T, typename F>
  T run(F&& op, std::error_code* error) {
    Failure failure;
    T result = op(failure);
    last_error = failure.detail;
    if (error) {
      *error = failure.code;
    } else {
      failure.throw_if_failed();
    }
    return result;
  }

  Device* device;
  Stream stream;
  protocol::SyncReplyReader reader;
  std::vector<std::uint8_t> in;
  std::span<const std::uint8_t> pending;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> file_buffer;  // a push's file content before compression
  std::size_t write_limit = 0;
  bool stat_v2 = false;
  bool ls_v2 = false;
  bool sendrecv_v2 = false;
  bool offered[3] = {};  // by SyncCodec: the device lists sendrecv_v2_<algorithm>
  bool broken = false;   // mid-reply or after a FAIL: the next call opens a new stream
  std::string last_error;
};

SyncClient::SyncClient(Device& device, Deadline deadline) : impl_(std::make_unique<Impl>(device)) {
  impl_->run<bool>([&](Failure& f) { return impl_->ensure(deadline, f); }, nullptr);
}

SyncClient::SyncClient(Device& device, Deadline deadline, std::error_code& error)
    : impl_(std::make_unique<Impl>(device)) {
  impl_->run<bool>([&](Failure& f) { return impl_->ensure(deadline, f); }, &error);
}

SyncClient::SyncClient(SyncClient&&) noexcept = default;
SyncClient& SyncClient::operator=(SyncClient&&) noexcept = default;
SyncClient::~SyncClient() = default;

RemoteStat SyncClient::stat(std::string_view path, Deadline deadline) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, true, s, deadline, f);
        return s;
      },
      nullptr);
}
RemoteStat SyncClient::stat(std::string_view path, Deadline deadline, std::error_code& error) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, true, s, deadline, f);
        return s;
      },
      &error);
}
RemoteStat SyncClient::lstat(std::string_view path, Deadline deadline) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, false, s, deadline, f);
        return s;
      },
      nullptr);
}
RemoteStat SyncClient::lstat(std::string_view path, Deadline deadline, std::error_code& error) {
  return impl_->run<RemoteStat>(
      [&](Failure& f) {
        RemoteStat s;
        impl_->stat(path, false, s, deadline, f);
        return s;
      },
      &error);
}

std::vector<RemoteEntry> SyncClient::list(std::string_view path, Deadline deadline) {
  return impl_->run<std::vector<RemoteEntry>>(
      [&](Failure& f) {
        std::vector<RemoteEntry> e;
        impl_->list(path, e, deadline, f);
        return e;
      },
      nullptr);
}
std::vector<RemoteEntry> SyncClient::list(std::string_view path, Deadline deadline,
                                          std::error_code& error) {
  return impl_->run<std::vector<RemoteEntry>>(
      [&](Failure& f) {
        std::vector<RemoteEntry> e;
        impl_->list(path, e, deadline, f);
        return e;
      },
      &error);
}

TransferStats SyncClient::pull(std::string_view remote, const fs::path& local,
                               const PullOptions& options) {
  return pull(std::vector<std::string>{std::string(remote)}, local, options);
}
TransferStats SyncClient::pull(std::string_view remote, const fs::path& local,
                               const PullOptions& options, std::error_code& error) {
  return pull(std::vector<std::string>{std::string(remote)}, local, options, error);
}
TransferStats SyncClient::pull(const std::vector<std::string>& remotes, const fs::path& local,
                               const PullOptions& options) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->pull(remotes, local, options, f); }, nullptr);
}
TransferStats SyncClient::pull(const std::vector<std::string>& remotes, const fs::path& local,
                               const PullOptions& options, std::error_code& error) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->pull(remotes, local, options, f); }, &error);
}

TransferStats SyncClient::push(const fs::path& local, std::string_view remote,
                               const PushOptions& options) {
  return push(std::vector<fs::path>{local}, remote, options);
}
TransferStats SyncClient::push(const fs::path& local, std::string_view remote,
                               const PushOptions& options, std::error_code& error) {
  return push(std::vector<fs::path>{local}, remote, options, error);
}
TransferStats SyncClient::push(const std::vector<fs::path>& locals, std::string_view remote,
                               const PushOptions& options) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->push(locals, remote, options, f); }, nullptr);
}
TransferStats SyncClient::push(const std::vector<fs::path>& locals, std::string_view remote,
                               const PushOptions& options, std::error_code& error) {
  return impl_->run<TransferStats>(
      [&](Failure& f) { return impl_->push(locals, remote, options, f); }, &error);
}

const std::string& SyncClient::last_error() const noexcept { return impl_->last_error; }

TransferStats pull(Device& device, std::string_view remote, const fs::path& local,
                   const PullOptions& options) {
  return SyncClient(device, options.deadline).pull(remote, local, options);
}

TransferStats pull(Device& device, std::string_view remote, const fs::path& local,
                   const PullOptions& options, std::error_code& error) {
  SyncClient client(device, options.deadline, error);
  return error ? TransferStats{} : client.pull(remote, local, options, error);
}

TransferStats push(Device& device, const fs::path& local, std::string_view remote,
                   const PushOptions& options) {
  return SyncClient(device, options.deadline).push(local, remote, options);
}

TransferStats push(Device& device, const fs::path& local, std::string_view remote,
                   const PushOptions& options, std::error_code& error) {
  SyncClient client(device, options.deadline, error);
  return error ? TransferStats{} : client.push(local, remote, options, error);
}

}  // namespace adbwire
