// SyncClient::pull: plan, then write (include/adbwire/sync.hpp states what a device can and
// cannot make a pull do).
#include <sys/stat.h>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "services/local_tree.hpp"
#include "services/pull_plan.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::detail {
namespace {

namespace fs = std::filesystem;

std::string shown(std::string_view text) { return protocol::printable(text, 600); }

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

class Puller {
 public:
  Puller(SyncChannel& channel, const PullPlan& plan, LocalTree& tree, const PullOptions& options,
         const FileFetcher& fetcher)
      : channel_(channel), plan_(plan), tree_(tree), options_(options), fetcher_(fetcher) {}

  SyncProgress progress;
  std::uint64_t wire_bytes = 0;

  bool pull_file(std::uint32_t index, Failure& failure) {
    const PlanEntry& entry = plan_.entries()[index];
    const std::string remote = plan_.remote_path(index);
    const std::string local_text = tree_.display_path(index);
    const int folder = tree_.folder_fd(entry.parent, failure);
    if (folder < 0) return false;
    TempFile temp;
    if (!temp.create(folder, entry.name, local_text, failure)) return false;
    progress.remote = remote;
    progress.local = local_text;
    progress.file_bytes = 0;
    progress.file_size = entry.size;
    const FileFetch fetch{remote, local_text, entry.size};
    if (!fetcher_(fetch, temp.fd(), progress, wire_bytes, failure)) return false;
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

  stats.compression = to_public(channel.choose(options.compression));
  Puller puller(channel, plan, tree, options, fetcher);
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
