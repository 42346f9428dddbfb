// The two transfer loops of SyncClient over a SyncChannel. Internal.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "services/sync_channel.hpp"

namespace adbwire::detail {

// SyncClient::pull: plans the whole tree (names and bounds checked), then writes it under the
// destination (services/local_tree.hpp), each file through a temporary file.
TransferStats pull_files(SyncChannel& channel, const std::vector<std::string>& remotes,
                         const std::filesystem::path& local, const PullOptions& options,
                         Failure& failure);

// SyncClient::push: walks the local tree, then sends every file over the one stream with up to
// kMaxDeferred acknowledgements outstanding, as AOSP does.
TransferStats push_files(SyncChannel& channel, const std::vector<std::filesystem::path>& locals,
                         std::string_view remote, const PushOptions& options, Failure& failure);

// "/a/b/" → "b"; "/" → "".
std::string remote_basename(std::string_view path);
// folder + "/" + name, with one slash.
std::string remote_join(std::string_view folder, std::string_view name);

}  // namespace adbwire::detail
