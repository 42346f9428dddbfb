// Verbs that copy files between this computer and the device: push and pull, under the rules of
// host_file.hpp (only inside the folders the operator allowed).
#include <sys/stat.h>

#include <filesystem>

#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"

namespace adbwire::verbs::handlers {
namespace {

std::string sizes(const TransferStats& stats) {
  return std::to_string(stats.files) + " file" + (stats.files == 1 ? "" : "s") + ", " +
         std::to_string(stats.bytes) + " bytes";
}

}  // namespace

Reply push(Call& call) {
  const std::string given = call.required_string("path");
  std::string remote = call.required_string("remote");
  const CheckedFile file = open_host_file(call.options().host_files, given, "push");
  Device& device = call.page().device();
  SyncClient sync(device);
  // A folder (named with a trailing / or found on the device) takes the file's own name.
  std::error_code error;
  const bool folder =
      remote.ends_with('/') || sync.stat(remote, kDefaultDeadline, error).is_directory();
  if (folder) remote += (remote.ends_with('/') ? "" : "/") + file.real().filename().string();
  // Pushed by name (sync sends a link as a link, so /proc/self/fd/N would arrive as one), once
  // that name is still the file checked and opened, not a link swapped in since.
  struct stat opened {};
  struct stat named {};
  if (::fstat(file.fd(), &opened) != 0 || ::lstat(file.real().c_str(), &named) != 0 ||
      !S_ISREG(named.st_mode) || named.st_dev != opened.st_dev || named.st_ino != opened.st_ino) {
    throw Error(errc::permission_denied, protocol::printable(file.real().string()) +
                                             " changed while it was being checked; nothing was "
                                             "sent");
  }
  const TransferStats stats = sync.push(file.real(), remote);
  return action_done(call, "Pushed " + protocol::printable(file.real().string()) + " to " +
                               protocol::printable(remote) + " (" + sizes(stats) + ").");
}

Reply pull(Call& call) {
  const std::string remote = call.required_string("remote");
  const std::filesystem::path local =
      writable_host_path(call.options().host_files, call.required_string("path"), "pull");
  PullOptions options;
  // The device's mode bits do not decide who reads the copy on this computer.
  options.keep_attributes = false;
  const TransferStats stats = SyncClient(call.page().device()).pull(remote, local, options);
  return Reply::text("Pulled " + protocol::printable(remote) + " to " +
                     protocol::printable(local.string()) + " (" + sizes(stats) + ").");
}

}  // namespace adbwire::verbs::handlers
