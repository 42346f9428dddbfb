// The full program's push: adb's choice among the listed devices, and a push on this process's own
// stream when the daemon does not serve the call (--no-daemon, --record, an adb server's device),
// compressing there itself.
#include "cli/commands.hpp"
#include "cli/device_selection.hpp"
#include "cli/push_files.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::cli {

TransferStats push_on_own_stream(detail::SyncChannel& channel,
                                 const std::vector<std::filesystem::path>& locals,
                                 std::string_view remote, const PushOptions& options) {
  detail::Failure failure;
  const TransferStats stats =
      detail::push_files(channel, locals, remote, options, failure, detail::send_compressed);
  failure.throw_if_failed();
  return stats;
}

void add_push_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  add_push_command_with(app, globals, run, {select_target, push_on_own_stream});
}

}  // namespace adbwire::cli
