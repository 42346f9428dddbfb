// SyncClient::push: walk the local tree, then send every file over the one stream, or each
// regular file through a FileSender. A compressed file's content is send_compressed's
// (sync_send.cpp), reached through a pointer, so the CLI's front links no codec.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>

#include "adbwire/error.hpp"
#include "base/shell_quote.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;
using protocol::SyncId;
using protocol::SyncReply;

// adbd's socket buffer holds this many acknowledgements (AOSP ReadAcknowledgements).
constexpr std::size_t kMaxDeferred = 128;

std::string errno_text(int error) { return std::strerror(error); }

// Closes a descriptor when it goes (-1: none).
struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0) ::close(fd);
  }
};

struct PushItem {
  fs::path local;
  std::string remote;
  std::uint32_t mode = 0;
  std::int64_t mtime = 0;
  std::uint64_t size = 0;
};

class Pusher {
 public:
  Pusher(SyncChannel& channel, SendCompressed compress) : channel_(channel), compress_(compress) {}

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
    if (!channel_.next(reply, deadline, failure)) return false;
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

  // Opens a regular file of the plan for reading (-1 and failure set when it cannot).
  static int open_file(const PushItem& item, Failure& failure) {
    const int fd = ::open(item.local.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      failure.set(errc::io_error, "cannot read " + item.local.string() + ": " + errno_text(errno));
    return fd;
  }

  bool push_file(const PushItem& item, std::deque<const PushItem*>& waiting,
                 const PushOptions& options, std::optional<SyncCodec> wanted,
                 SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    const int fd = S_ISLNK(item.mode) ? -1 : open_file(item, failure);
    if (!S_ISLNK(item.mode) && fd < 0) return false;
    const FileCloser closer{fd};
    return push_open(item, fd, waiting, options, wanted, progress, wire_bytes, failure);
  }

  // push_file on fd (-1 for a link, whose target is read from item.local).
  bool push_open(const PushItem& item, int fd, std::deque<const PushItem*>& waiting,
                 const PushOptions& options, std::optional<SyncCodec> wanted,
                 SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    // A link's target goes plain, as AOSP sends small files.
    const bool compressed = wanted.has_value() && !S_ISLNK(item.mode);
    if (compressed && compress_ == nullptr) {
      failure.set(errc::invalid_argument,
                  "this program sends compressed files only through the adbwire daemon");
      return false;
    }
    const SyncCodec codec = wanted.value_or(SyncCodec::zstd);
    const std::uint32_t flags = compressed ? sync_codec_flag(codec) : protocol::kSyncFlagNone;
    const std::error_code too_long =
        channel_.sendrecv_v2()
            ? protocol::append_sync_send_v2(channel_.out(), item.remote, item.mode, flags)
            : protocol::append_sync_send_v1(channel_.out(), item.remote, item.mode);
    if (too_long) {
      failure.set(errc::invalid_argument, "device path longer than 1024 bytes: " + item.remote);
      return false;
    }
    channel_.expect(channel_.sendrecv_v2() ? SyncId::snd2 : SyncId::send);
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
        channel_.mark_broken();  // a SEND without its DONE is on its way
        return false;
      }
      target.push_back('\0');
      protocol::append_sync_data(
          out(), {reinterpret_cast<const std::uint8_t*>(target.data()), target.size()});
      wire_bytes += target.size();
    } else if (compressed) {
      const auto flush_failed = [&] { explain_write_failure(waiting, options.deadline, failure); };
      if (!compress_(channel_, fd, local_text, codec, options, progress, wire_bytes, failure,
                     flush_failed))
        return false;
    } else {
      for (;;) {
        if (out().size() + protocol::kSyncHeaderSize + protocol::kSyncDataMax >
                channel_.write_limit() &&
            !channel_.flush(options.deadline, failure)) {
          explain_write_failure(waiting, options.deadline, failure);
          return false;
        }
        const std::size_t at = out().size();
        out().resize(at + protocol::kSyncHeaderSize + protocol::kSyncDataMax);
        ssize_t n;
        do {
          n = ::read(fd, out().data() + at + protocol::kSyncHeaderSize, protocol::kSyncDataMax);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
          failure.set(errc::io_error, "reading " + local_text + ": " + errno_text(errno));
          out().resize(at);
          channel_.mark_broken();  // closing the stream makes the device drop the partial file
          return false;
        }
        if (n == 0) {
          out().resize(at);
          break;
        }
        out().resize(at + protocol::kSyncHeaderSize +
                     static_cast<std::size_t>(n));  // shrinking keeps the bytes
        protocol::write_sync_header(std::span<std::uint8_t, protocol::kSyncHeaderSize>(
                                        out().data() + at, protocol::kSyncHeaderSize),
                                    SyncId::data, static_cast<std::uint32_t>(n));
        progress.file_bytes += static_cast<std::uint64_t>(n);
        progress.total_bytes += static_cast<std::uint64_t>(n);
        wire_bytes += static_cast<std::uint64_t>(n);
        if (options.progress) channel_.call_progress(options.progress, progress);
      }
    }
    protocol::append_sync_done(out(), static_cast<std::uint32_t>(item.mtime));
    while (waiting.size() >= kMaxDeferred) {
      if (!channel_.flush(options.deadline, failure)) {
        explain_write_failure(waiting, options.deadline, failure);
        return false;
      }
      if (!read_ack(waiting, options.deadline, failure)) return false;
    }
    ++progress.files_done;
    return true;
  }

  // Sends what is buffered and reads every acknowledgement still owed.
  bool drain(std::deque<const PushItem*>& waiting, Deadline deadline, Failure& failure) {
    if (!channel_.flush(deadline, failure)) {
      explain_write_failure(waiting, deadline, failure);
      return false;
    }
    while (!waiting.empty()) {
      if (!read_ack(waiting, deadline, failure)) return false;
    }
    return true;
  }

  // A regular file through sender, once the files before it are answered (the device then has
  // them in the order of the plan).
  bool send_through(const FileSender& sender, const PushItem& item,
                    std::deque<const PushItem*>& waiting, const PushOptions& options,
                    SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
    if (!drain(waiting, options.deadline, failure)) return false;
    const int fd = open_file(item, failure);
    if (fd < 0) return false;
    const FileCloser closer{fd};
    const std::string local_text = item.local.string();
    progress.remote = item.remote;
    progress.local = local_text;
    progress.file_bytes = 0;
    progress.file_size = item.size;
    if (!sender({item.remote, local_text, item.mode, item.mtime, item.size}, fd, progress,
                wire_bytes, failure))
      return false;
    ++progress.files_done;
    return true;
  }

  // send_file: one file from fd, answered before it returns.
  bool send_one(const PushItem& item, int fd, const PushOptions& options,
                std::optional<SyncCodec> codec, SyncProgress& progress, std::uint64_t& wire_bytes,
                Failure& failure) {
    if (!S_ISREG(item.mode)) {
      failure.set(errc::invalid_argument,
                  "only a regular file is sent from a descriptor, not mode " +
                      std::to_string(item.mode) + " (" + item.remote + ")");
      return false;
    }
    if (!channel_.ensure(options.deadline, failure)) return false;
    std::deque<const PushItem*> waiting;
    return push_open(item, fd, waiting, options, codec, progress, wire_bytes, failure) &&
           drain(waiting, options.deadline, failure);
  }

  TransferStats run(const std::vector<fs::path>& locals, std::string_view remote,
                    const PushOptions& options, Failure& failure, const FileSender* sender) {
    const auto start = Clock::now();
    TransferStats stats;
    if (locals.empty()) {
      failure.set(errc::invalid_argument, "push needs at least one local path");
      return stats;
    }
    RemoteStat remote_stat;
    Failure remote_failure;
    const bool remote_exists =
        channel_.stat(remote, true, remote_stat, options.deadline, remote_failure);
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

    if (!channel_.ensure(options.deadline, failure)) return stats;
    const std::optional<SyncCodec> codec = channel_.choose(options.compression);
    stats.compression = to_public(codec);
    std::deque<const PushItem*> waiting;
    std::size_t sent = 0;
    std::uint64_t wire_bytes = 0;
    for (const PushItem& file : files) {
      const bool sent_here =
          sender == nullptr || !S_ISREG(file.mode)
              ? push_file(file, waiting, options, codec, progress, wire_bytes, failure)
              : send_through(*sender, file, waiting, options, progress, wire_bytes, failure);
      if (!sent_here) break;
      ++sent;
    }
    if (!failure) drain(waiting, options.deadline, failure);
    if (!failure) {
      stats.files = sent;
      stats.bytes = progress.total_bytes;
      stats.wire_bytes = wire_bytes;
    }
    if (!failure && options.progress) {
      progress.files_done = files.size();
      channel_.call_progress(options.progress, progress);
    }
    if (!failure && !empty_folders.empty()) {
      std::string command = "mkdir -p";
      for (const std::string& folder : empty_folders) command += " " + detail::shell_quote(folder);
      std::error_code error;
      const ShellResult result = channel_.device().shell(command, options.deadline, error);
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

 private:
  std::vector<std::uint8_t>& out() { return channel_.out(); }

  SyncChannel& channel_;
  SendCompressed compress_;  // null: a program that sends no compressed file itself
};

}  // namespace

TransferStats push_files(SyncChannel& channel, const std::vector<fs::path>& locals,
                         std::string_view remote, const PushOptions& options, Failure& failure,
                         SendCompressed compress, const FileSender* sender) {
  return Pusher(channel, compress).run(locals, remote, options, failure, sender);
}

bool send_file(SyncChannel& channel, const FileSend& send, int fd, std::optional<SyncCodec> codec,
               SendCompressed compress, const PushOptions& options, SyncProgress& progress,
               std::uint64_t& wire_bytes, Failure& failure) {
  const PushItem item{fs::path(send.local), std::string(send.remote), send.mode, send.mtime,
                      send.size};
  return Pusher(channel, compress)
      .send_one(item, fd, options, codec, progress, wire_bytes, failure);
}

}  // namespace adbwire::detail
