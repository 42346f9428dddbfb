// How the CLI's pull moves a file's bytes: through the daemon, the daemon receives each file into
// the descriptor of the temporary file this process made (daemon::PullIntoClient), so the bytes
// never cross the daemon's socket; without it, on this process's own connection.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/sync.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// SyncClient::pull's contract (errors, no half-written file under a final name, progress), on
// device as connect_device(globals) reached it. Throws adbwire::Error.
TransferStats pull_to_host(const GlobalOptions& globals, Device& device,
                           const std::vector<std::string>& remotes,
                           const std::filesystem::path& local, const PullOptions& options);

}  // namespace adbwire::cli
