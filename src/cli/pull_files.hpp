// How the CLI's pull moves a file's bytes: through the daemon, the daemon receives each file into
// the descriptor of the temporary file this process made (daemon::DescriptorClient), so the bytes
// never cross the daemon's socket; without it, on this process's own connection.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/sync.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// A pull on this process's own connection (SyncClient::pull).
using DirectPull = TransferStats (*)(Device& device, const std::vector<std::string>& remotes,
                                     const std::filesystem::path& local,
                                     const PullOptions& options);

// The full program's DirectPull (pull_direct.cpp; the lean front links none of it).
TransferStats pull_on_own_connection(Device& device, const std::vector<std::string>& remotes,
                                     const std::filesystem::path& local,
                                     const PullOptions& options);

// What a program's pull takes from it. The full program chooses among the listed devices as adb
// does (select_target) and pulls on its own connection when the daemon does not serve the call;
// the lean front serves only calls the daemon serves, whose device is named, and links neither
// (no device listing, USB or codec library).
struct PullWays {
  std::string (*choose_target)(const GlobalOptions& globals) = nullptr;
  DirectPull pull_directly = nullptr;
};

// `pull` with the ways of the program registering it (pull_command.cpp).
void add_pull_command_with(CLI::App& app, const GlobalOptions& globals, Run& run, PullWays ways);

// SyncClient::pull's contract (errors, no half-written file under a final name, progress), on
// device as connect_device(globals) reached it: through the daemon when it serves the call, else
// pull_directly. Throws adbwire::Error.
TransferStats pull_to_host(const GlobalOptions& globals, Device& device,
                           const std::vector<std::string>& remotes,
                           const std::filesystem::path& local, const PullOptions& options,
                           DirectPull pull_directly);

}  // namespace adbwire::cli
