// SyncClient::pull: plan, then write (include/adbwire/sync.hpp states what a device can and
// cannot make a pull do).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "services/local_tree.hpp"
#include "services/pull_plan.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;
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

// Planning asks the device through the channel, each wait bounded by the call's deadline.
class ChannelLister final : public PullLister {
 public:
  ChannelLister(SyncChannel& channel, Deadline deadline) : channel_(channel), deadline_(deadline) {}

  bool stat(std::string_view path, RemoteStat& result, Failure& failure) override {
    return channel_.stat(path, true, result, deadline_, failure);
  }
  bool list(std::string_view path,
            const std::function<bool(std::string&& name, const RemoteStat&)>& on_entry,
            Failure& failure) override {
    return channel_.list(path, on_entry, deadline_, failure);
  }

 private:
  SyncChannel& channel_;
  Deadline deadline_;
};

std::string corrupt_detail(std::string_view remote, const SyncDecompressor& decoder,
                           std::string_view local, std::uint64_t written) {
  return "pulling " + shown(remote) + ": the device sent corrupt " +
         std::string(sync_codec_name(decoder.codec())) + "-compressed data: " + decoder.error() +
         " (after " + std::to_string(written) + " bytes; nothing was written to " + shown(local) +
         ")";
}

class Puller {
 public:
  Puller(SyncChannel& channel, const PullPlan& plan, LocalTree& tree, const PullOptions& options,
         std::optional<SyncCodec> codec, const FileFetcher& fetcher)
      : channel_(channel),
        plan_(plan),
        tree_(tree),
        options_(options),
        codec_(codec),
        fetcher_(fetcher) {}

  SyncProgress progress;
  std::uint64_t wire_bytes = 0;

  bool pull_file(std::uint32_t index, Failure& failure) {
    const PlanEntry& entry = plan_.entries()[index];
    const std::string remote = plan_.remote_path(index);
    const std::string local_text = tree_.display_path(index);
    if (!fetcher_ && !channel_.ensure(options_.deadline, failure)) return false;
    const int folder = tree_.folder_fd(entry.parent, failure);
    if (folder < 0) return false;
    TempFile temp;
    if (!temp.create(folder, entry.name, local_text, failure)) return false;
    progress.remote = remote;
    progress.local = local_text;
    progress.file_bytes = 0;
    progress.file_size = entry.size;
    const FileFetch fetch{remote, local_text, entry.size};
    const bool received = fetcher_ ? fetcher_(fetch, temp.fd(), progress, wire_bytes, failure)
                                   : receive_file(channel_, fetch, temp.fd(), codec_, options_,
                                                  progress, wire_bytes, failure);
    if (!received) return false;
    const mode_t mode =
        options_.private_files
            ? 0600
            : static_cast<mode_t>((options_.keep_attributes ? entry.mode & 0777 : 0644) &
                                  ~tree_.umask());
    if (!temp.commit(mode, options_.keep_attributes ? entry.mtime : -1, failure)) return false;
    ++progress.files_done;
    if (options_.progress) channel_.call_progress(options_.progress, progress);
    return true;
  }

 private:
  SyncChannel& channel_;
  const PullPlan& plan_;
  LocalTree& tree_;
  const PullOptions& options_;
  std::optional<SyncCodec> codec_;
  const FileFetcher& fetcher_;
};

}  // namespace

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

bool receive_file(SyncChannel& channel, const FileFetch& fetch, int fd,
                  std::optional<SyncCodec> codec, const PullOptions& options,
                  SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure) {
  const std::string_view remote = fetch.remote;
  const std::string_view local_text = fetch.local;
  if (!channel.ensure(options.deadline, failure)) return false;
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
  const std::uint64_t allowed = fetch.size > std::numeric_limits<std::uint64_t>::max() - slack
                                    ? std::numeric_limits<std::uint64_t>::max()
                                    : fetch.size + slack;
  std::uint64_t written = 0;
  bool sink_failed = false;
  // Made once per file: a SyncSink built per chunk from this lambda would allocate each time.
  const SyncSink store = [&](std::span<const std::uint8_t> bytes) {
    sink_failed = true;
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
    if (!write_all(fd, bytes)) {
      failure.set(errc::io_error, "writing " + shown(local_text) + ": " + std::strerror(errno));
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

TransferStats pull_files(SyncChannel& channel, const std::vector<std::string>& remotes,
                         const fs::path& local, const PullOptions& options, Failure& failure,
                         const FileFetcher& fetcher) {
  const auto start = Clock::now();
  TransferStats stats;
  std::error_code ignored;
  bool local_is_folder = fs::is_directory(local, ignored);
  if (!local_is_folder && !local.empty() && !local.has_filename()) {
    // "out/" names a folder to pull into, as it would in a shell.
    std::error_code error;
    fs::create_directories(local, error);
    if (error) {
      failure.set(errc::io_error,
                  "cannot create folder " + shown(local.string()) + ": " + error.message());
      return stats;
    }
    local_is_folder = true;
  }
  if (remotes.empty() || (remotes.size() > 1 && !local_is_folder)) {
    failure.set(errc::invalid_argument, remotes.empty()
                                            ? std::string("pull needs at least one remote path")
                                            : "pulling " + std::to_string(remotes.size()) +
                                                  " paths needs an existing local folder, not " +
                                                  shown(local.string()));
    return stats;
  }
  // The destination folder, and the name of each copy in it. These come from the caller, not
  // the device; still, a name that is not one component ("/sdcard/..") cannot be a copy's name.
  fs::path destination = local_is_folder ? local : local.parent_path();
  if (destination.empty()) destination = ".";
  std::vector<PullRoot> roots;
  for (const std::string& remote : remotes) {
    std::string name = local_is_folder ? remote_basename(remote) : local.filename().string();
    const bool whole_folder = local_is_folder && name.empty();  // "/" itself
    if (!whole_folder && unsafe_name_reason(name, SyncLimits{}.max_name_length) != nullptr) {
      failure.set(errc::invalid_argument, "cannot name the local copy of " + shown(remote) + " \"" +
                                              shown(name) +
                                              "\": give the local file name explicitly");
      return stats;
    }
    roots.push_back({remote, std::move(name)});
  }
  if (!local_is_folder) {
    std::error_code error;
    fs::create_directories(destination, error);
    if (error) {
      failure.set(errc::io_error,
                  "cannot create folder " + shown(destination.string()) + ": " + error.message());
      return stats;
    }
  }

  PullPlan plan(options.limits);
  ChannelLister lister(channel, options.deadline);
  if (!plan.build(roots, lister, failure)) {
    failure.detail += " (nothing was written)";
    return stats;
  }
  stats.skipped = plan.skipped();
  LocalTree tree(plan, destination, current_umask());
  if (!tree.open(failure) ||
      !tree.make_folders(options.keep_attributes || options.private_files, failure))
    return stats;

  const std::optional<SyncCodec> codec = channel.choose(options.compression);
  stats.compression = to_public(codec);
  Puller puller(channel, plan, tree, options, codec, fetcher);
  puller.progress.files_total = plan.file_count();
  puller.progress.total_size = plan.total_size();
  const auto& entries = plan.entries();
  for (std::uint32_t i = 0; i < entries.size(); ++i) {
    if (entries[i].kind != PlanKind::file) continue;
    if (!puller.pull_file(i, failure)) break;
    ++stats.files;
    stats.bytes += puller.progress.file_bytes;
  }
  stats.wire_bytes = puller.wire_bytes;
  // Folder attributes last, deepest first: a read-only folder must not block its files.
  if (!failure && options.keep_attributes && !options.private_files) tree.finish_folders(failure);
  stats.elapsed = Clock::now() - start;
  return stats;
}

}  // namespace adbwire::detail
