// How the CLI's push moves a file's bytes: through the daemon, the daemon sends each regular file
// from the descriptor this process opened (daemon::DescriptorClient), so the bytes never cross
// the daemon's socket; without it, on this process's own stream.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/sync.hpp"
#include "cli/command.hpp"
#include "services/sync_channel.hpp"

namespace adbwire::cli {

// A push on this process's own stream (channel, opened), compressing as options ask. Throws
// adbwire::Error.
using DirectPush = TransferStats (*)(detail::SyncChannel& channel,
                                     const std::vector<std::filesystem::path>& locals,
                                     std::string_view remote, const PushOptions& options);

// The full program's DirectPush (push_direct.cpp; the lean front links none of it: it brings the
// codecs).
TransferStats push_on_own_stream(detail::SyncChannel& channel,
                                 const std::vector<std::filesystem::path>& locals,
                                 std::string_view remote, const PushOptions& options);

// What a program's push takes from it, as PullWays for pull: the full program chooses among the
// listed devices as adb does and pushes on its own stream when the daemon does not serve the
// call; the lean front serves only calls the daemon serves, whose device is named.
struct PushWays {
  std::string (*choose_target)(const GlobalOptions& globals) = nullptr;
  DirectPush push_directly = nullptr;
};

// `push` with the ways of the program registering it (push_command.cpp).
void add_push_command_with(CLI::App& app, const GlobalOptions& globals, Run& run, PushWays ways);

}  // namespace adbwire::cli
