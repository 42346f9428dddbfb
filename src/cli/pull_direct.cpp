// The full program's pull: adb's choice among the listed devices, and a pull on this process's own
// connection when the daemon does not serve the call (--no-daemon, --record, an adb server's
// device).
#include "adbwire/sync.hpp"
#include "cli/commands.hpp"
#include "cli/device_selection.hpp"
#include "cli/pull_files.hpp"

namespace adbwire::cli {

TransferStats pull_on_own_connection(Device& device, const std::vector<std::string>& remotes,
                                     const std::filesystem::path& local,
                                     const PullOptions& options) {
  SyncClient sync(device, options.deadline);
  return sync.pull(remotes, local, options);
}

void add_pull_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  add_pull_command_with(app, globals, run, {select_target, pull_on_own_connection});
}

}  // namespace adbwire::cli
