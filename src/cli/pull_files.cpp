#include "cli/pull_files.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include "adbwire/error.hpp"
#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/client.hpp"
#include "services/sync_channel.hpp"
#include "services/sync_transfer.hpp"

namespace adbwire::cli {

TransferStats pull_to_host(const GlobalOptions& globals, Device& device,
                           const std::vector<std::string>& remotes,
                           const std::filesystem::path& local, const PullOptions& options,
                           DirectPull pull_directly) {
  if (!full_program_uses_daemon(globals)) {
    if (pull_directly == nullptr)
      throw Error(errc::invalid_argument, "this program pulls only through the adbwire daemon");
    return pull_directly(device, remotes, local, options);
  }
  const std::string target = named_target(globals);
  daemon::DescriptorClient daemon(
      target, daemon_start(globals), connect_options(globals).auth_timeout,
      [](std::string_view note) { print_error("adbwire: " + std::string(note)); });
  const detail::FileFetcher fetcher = [&](const detail::FileFetch& fetch, int fd,
                                          SyncProgress& progress, std::uint64_t& wire_bytes,
                                          detail::Failure& failure) {
    const daemon::PullInto pull{std::string(fetch.remote),
                                std::string(fetch.local),
                                fetch.size,
                                options.limits.file_slack,
                                std::string(to_string(options.compression)),
                                milliseconds_left(options.deadline)};
    const std::uint64_t before = progress.total_bytes;
    const auto received = [&](std::uint64_t bytes) {
      progress.file_bytes = bytes;
      progress.total_bytes = before + bytes;
    };
    // The file grows as the daemon writes it: its size is the progress.
    const auto watch = [&] {
      struct stat st {};
      if (!options.progress || ::fstat(fd, &st) != 0) return;
      received(static_cast<std::uint64_t>(st.st_size));
      options.progress(progress);
    };
    std::uint64_t bytes = 0;
    std::uint64_t wire = 0;
    if (!daemon.pull(pull, fd, watch, bytes, wire, failure)) return false;
    received(bytes);
    wire_bytes += wire;
    return true;
  };
  detail::SyncChannel channel(device);
  detail::Failure failure;
  const TransferStats stats =
      detail::pull_files(channel, remotes, local, options, failure, fetcher);
  failure.throw_if_failed();
  return stats;
}

}  // namespace adbwire::cli
