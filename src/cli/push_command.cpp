#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"
#include "cli/transfer_report.hpp"

namespace adbwire::cli {
namespace {

struct PushArgs {
  std::vector<std::string> paths;  // LOCAL… REMOTE
  bool quiet = false;
  TimeoutOption timeout;
  std::string compression = "any";  // -z
  bool no_compression = false;      // -Z
};

}  // namespace

void add_push_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<PushArgs>();
  auto* cmd = app.add_subcommand("push",
                                 "copy files or folders to the device, keeping modes and mtimes: "
                                 "push LOCAL… REMOTE");
  cmd->add_option("paths", args->paths, "LOCAL… then REMOTE")->required()->expected(2, -1);
  cmd->add_flag("-q,--quiet", args->quiet, "print no progress and no summary");
  add_compression_options(*cmd, args->compression, args->no_compression, "any");
  add_timeout_option(*cmd, args->timeout, "-t,--timeout",
                     "give up after this many seconds in all (default: only when the device "
                     "stalls)");
  cmd->callback([args, cmd, &globals, &run] {
    run = [args, cmd, &globals] {
      const std::string remote = args->paths.back();
      const std::vector<std::filesystem::path> locals(args->paths.begin(), args->paths.end() - 1);
      Device device = connect_device(globals);
      PushOptions options;
      options.compression = compression_choice(*cmd, args->compression, args->no_compression);
      options.progress = progress_bar(args->quiet);
      options.deadline = args->timeout.deadline();
      SyncClient sync(device, options.deadline);
      TransferStats stats;
      try {
        stats = sync.push(locals, remote, options);
      } catch (const Error& e) {
        // As adb: a sync error is printed where the summary would be, on stdout.
        print("adbwire: error: " + std::string(e.what()) + "\n");
        return 1;
      }
      std::string what = locals.size() == 1 ? locals.front().string() : remote;
      // As adb, a folder pushed is named with a '/'.
      if (locals.size() == 1 && !what.ends_with('/') &&
          std::filesystem::is_directory(locals.front()))
        what += '/';
      print_summary(what, "pushed", stats, args->quiet);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
