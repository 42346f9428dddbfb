#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/push_files.hpp"
#include "cli/terminal_text.hpp"
#include "cli/transfer_report.hpp"
#include "daemon/client.hpp"
#include "services/sync_channel.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::cli {
namespace {

struct PushArgs {
  std::vector<std::string> paths;  // LOCAL… REMOTE
  bool quiet = false;
  TimeoutOption timeout;
  std::string compression = "any";  // -z
  bool no_compression = false;      // -Z
};

// SyncClient::push's contract on channel, on the device as connect_device(globals) reached it.
// Through the daemon, each regular file's descriptor goes to it (daemon::DescriptorClient::push),
// which sends the file on the connection it holds, so the bytes never cross its socket; the plan,
// links and empty folders take this process's stream. Else push_directly. Throws adbwire::Error.
TransferStats push_from_host(const GlobalOptions& globals, detail::SyncChannel& channel,
                             const std::vector<std::filesystem::path>& locals,
                             std::string_view remote, const PushOptions& options,
                             DirectPush push_directly) {
  if (!full_program_uses_daemon(globals)) {
    if (push_directly == nullptr)
      throw Error(errc::invalid_argument, "this program pushes only through the adbwire daemon");
    return push_directly(channel, locals, remote, options);
  }
  daemon::DescriptorClient daemon(
      globals.serial, daemon_start(globals), connect_options(globals).auth_timeout,
      [](std::string_view note) { print_error("adbwire: " + std::string(note)); });
  const detail::FileSender sender = [&](const detail::FileSend& send, int fd,
                                        SyncProgress& progress, std::uint64_t& wire_bytes,
                                        detail::Failure& failed) {
    const daemon::PushFrom push{std::string(send.remote),
                                std::string(send.local),
                                send.mode,
                                send.mtime,
                                std::string(to_string(options.compression)),
                                milliseconds_left(options.deadline)};
    const std::uint64_t before = progress.total_bytes;
    const auto sent = [&](std::uint64_t bytes) {
      progress.file_bytes = bytes;
      progress.total_bytes = before + bytes;
    };
    // The daemon reads through the description this process opened: its offset is the progress.
    const auto watch = [&] {
      const off_t at = ::lseek(fd, 0, SEEK_CUR);
      if (!options.progress || at < 0) return;
      sent(static_cast<std::uint64_t>(at));
      options.progress(progress);
    };
    std::uint64_t bytes = 0;
    std::uint64_t wire = 0;
    if (!daemon.push(push, fd, watch, bytes, wire, failed)) return false;
    sent(bytes);
    wire_bytes += wire;
    return true;
  };
  // Links go on channel plain; every regular file goes through sender: no codec here.
  detail::Failure failure;
  const TransferStats stats =
      detail::push_files(channel, locals, remote, options, failure, nullptr, &sender);
  failure.throw_if_failed();
  return stats;
}

}  // namespace

void add_front_push_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  add_push_command_with(app, globals, run, {named_target, nullptr});
}

void add_push_command_with(CLI::App& app, const GlobalOptions& globals, Run& run, PushWays ways) {
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
  cmd->callback([args, cmd, ways, &globals, &run] {
    run = [args, cmd, ways, &globals] {
      const std::string remote = args->paths.back();
      const std::vector<std::filesystem::path> locals(args->paths.begin(), args->paths.end() - 1);
      // Chosen once: the connection and the daemon's pushes from our files name the same device.
      GlobalOptions chosen = globals;
      chosen.serial = ways.choose_target(globals);
      Device device = connect_device(chosen);
      PushOptions options;
      options.compression = compression_choice(*cmd, args->compression, args->no_compression);
      options.progress = progress_bar(args->quiet);
      options.deadline = args->timeout.deadline();
      detail::SyncChannel channel(device);
      detail::Failure opened;
      channel.ensure(options.deadline, opened);
      opened.throw_if_failed();
      TransferStats stats;
      try {
        stats = push_from_host(chosen, channel, locals, remote, options, ways.push_directly);
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
