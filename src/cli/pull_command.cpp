#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "base/signal_cleanup.hpp"
#include "cli/connect.hpp"
#include "cli/pull_files.hpp"
#include "cli/terminal_text.hpp"
#include "cli/transfer_report.hpp"

namespace adbwire::cli {
namespace {

struct PullArgs {
  std::vector<std::string> paths;  // REMOTE… LOCAL
  bool keep_attributes = false;
  bool quiet = false;
  TimeoutOption timeout;
  std::string compression = "none";  // -z: adb pulls plain unless asked
  bool no_compression = false;       // -Z
  SyncLimits limits;
};

}  // namespace

void add_front_pull_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  add_pull_command_with(app, globals, run, {named_target, nullptr});
}

void add_pull_command_with(CLI::App& app, const GlobalOptions& globals, Run& run, PullWays ways) {
  auto args = std::make_shared<PullArgs>();
  auto* cmd = app.add_subcommand(
      "pull", "copy files or folders from the device: pull [-a] REMOTE… [LOCAL]");
  cmd->add_option("paths", args->paths, "REMOTE… then LOCAL (default: the current folder)")
      ->required();
  cmd->add_flag("-a", args->keep_attributes, "keep the device's file modes and mtimes");
  cmd->add_flag("-q,--quiet", args->quiet, "print no progress and no summary");
  add_compression_options(*cmd, args->compression, args->no_compression, "none");
  cmd->add_option("--max-entries", args->limits.max_tree_entries,
                  "refuse a pull of more files and folders than this (a hostile device can list "
                  "without end)")
      ->capture_default_str();
  cmd->add_option("--max-listing", args->limits.max_listing_entries,
                  "refuse a folder that lists more entries than this")
      ->capture_default_str();
  cmd->add_option("--max-depth", args->limits.max_depth,
                  "refuse a tree deeper than this many folders")
      ->capture_default_str();
  cmd->add_option("--max-memory", args->limits.max_memory,
                  "refuse a listing or tree whose entries and names take more bytes than this")
      ->capture_default_str();
  cmd->add_option("--file-slack", args->limits.file_slack,
                  "bytes a file may have beyond the size the device announced (a file growing "
                  "meanwhile); more fails the pull, so a compression bomb cannot fill the disk")
      ->capture_default_str();
  add_timeout_option(*cmd, args->timeout, "-t,--timeout",
                     "give up after this many seconds in all, checked while data flows (default: "
                     "only when the device stalls)");
  cmd->callback([args, cmd, ways, &globals, &run] {
    run = [args, cmd, ways, &globals] {
      std::vector<std::string> remotes = args->paths;
      std::string local = ".";
      if (remotes.size() > 1) {
        local = remotes.back();
        remotes.pop_back();
      }
      // As adb: the destination's folder must exist (a typo creates no tree of folders).
      std::filesystem::path target(local);
      while (target.has_relative_path() && !target.has_filename()) target = target.parent_path();
      const bool local_existed = std::filesystem::exists(target);
      const bool local_was_folder = std::filesystem::is_directory(target);
      if (!local_existed && !target.parent_path().empty() &&
          !std::filesystem::exists(target.parent_path())) {
        print("adbwire: error: cannot create file/directory '" + local +
              "': No such file or directory\n");
        return 1;
      }
      // Chosen once: the connection and the daemon's pull into our files name the same device.
      GlobalOptions chosen = globals;
      chosen.serial = ways.choose_target(globals);
      Device device = connect_device(chosen);
      detail::remove_on_signals();  // Ctrl-C leaves no hidden temporary file behind
      PullOptions options;
      options.compression = compression_choice(*cmd, args->compression, args->no_compression);
      options.keep_attributes = args->keep_attributes;
      options.limits = args->limits;
      options.progress = progress_bar(args->quiet);
      options.deadline = args->timeout.deadline();
      TransferStats stats;
      try {
        stats = pull_to_host(chosen, device, remotes, local, options, ways.pull_directly);
      } catch (const Error& e) {
        // As adb: a sync error is printed where the summary would be, on stdout.
        print("adbwire: error: " + std::string(e.what()) + "\n");
        return 1;
      }
      std::string what = remotes.size() == 1 ? remotes.front() : local;
      // As adb, a folder pulled is named with a '/' (what was written tells it was one).
      const std::filesystem::path written =
          local_was_folder ? target / std::filesystem::path(what).filename() : target;
      if (remotes.size() == 1 && !what.ends_with('/') && std::filesystem::is_directory(written))
        what += '/';
      print_summary(what, "pulled", stats, args->quiet);
      return 0;
    };
  });
}

}  // namespace adbwire::cli
