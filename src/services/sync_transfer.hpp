// The two transfer loops of SyncClient over a SyncChannel. Internal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "services/sync_channel.hpp"

namespace adbwire::detail {

// One file of a pull, on its way into a descriptor.
struct FileFetch {
  std::string_view remote;
  std::string_view local;  // where it goes, for messages
  std::uint64_t size = 0;  // what the device announced (its stat or listing)
};

// Receives fetch.remote into fd over channel (decoded with codec): at most fetch.size +
// options.limits.file_slack bytes, progress.file_bytes and total_bytes counted and
// options.progress called per chunk, wire_bytes counting what crossed the wire. Errors as
// SyncClient::pull's for one file; fd then holds part of the file (the caller removes it).
bool receive_file(SyncChannel& channel, const FileFetch& fetch, int fd,
                  std::optional<SyncCodec> codec, const PullOptions& options,
                  SyncProgress& progress, std::uint64_t& wire_bytes, Failure& failure);

// Fills fd with one file of a pull instead of receive_file on the pull's channel, with the same
// contract: the CLI's pull through the daemon hands the descriptor of its temporary file to the
// daemon, which receives into it on the connection it holds.
using FileFetcher = std::function<bool(const FileFetch& fetch, int fd, SyncProgress& progress,
                                       std::uint64_t& wire_bytes, Failure& failure)>;

// SyncClient::pull: plans the whole tree (names and bounds checked), then writes it under the
// destination (services/local_tree.hpp), each file through a temporary file filled by fetcher
// (receive_file on channel for SyncClient).
TransferStats pull_files(SyncChannel& channel, const std::vector<std::string>& remotes,
                         const std::filesystem::path& local, const PullOptions& options,
                         Failure& failure, const FileFetcher& fetcher);

// One file of a push, on its way from a descriptor.
struct FileSend {
  std::string_view remote;
  std::string_view local;  // where it comes from, for messages
  std::uint32_t mode = 0;  // as SEND carries it
  std::int64_t mtime = 0;  // as DONE carries it
  std::uint64_t size = 0;  // what the plan saw (progress only: the file is sent to its end)
};

// Appends the content of fd, read from its offset to its end, to channel's output as one stream
// compressed with codec in DATA chunks, after the SEND of its file; flushes as the output fills
// and calls flush_failed after a flush failed (the device may have said why before it closed).
// Counts progress as push_files does; local names the file in messages. Errors as
// SyncClient::push's for one file. Apart from the sending loop (sync_send.cpp), so that a program
// that pushes only through the daemon links no codec.
bool send_compressed(SyncChannel& channel, int fd, std::string_view local, SyncCodec codec,
                     const PushOptions& options, SyncProgress& progress, std::uint64_t& wire_bytes,
                     Failure& failure, const std::function<void()>& flush_failed);

// How a push compresses a file on its own stream: send_compressed, or null in a program that
// sends none itself (a compressed file is then an invalid_argument failure).
using SendCompressed = decltype(&send_compressed);

// Sends fd from its offset to its end as send.remote over channel (compressed with codec when
// given, through compress), waits for the device's answer, and counts progress as push_files
// does. Errors as SyncClient::push's for one file.
bool send_file(SyncChannel& channel, const FileSend& send, int fd, std::optional<SyncCodec> codec,
               SendCompressed compress, const PushOptions& options, SyncProgress& progress,
               std::uint64_t& wire_bytes, Failure& failure);

// Sends fd (a regular file of the push, open for reading) instead of the push's own stream, with
// send_file's contract: the CLI's push through the daemon hands the descriptor to the daemon,
// which sends it on the connection it holds.
using FileSender = std::function<bool(const FileSend& send, int fd, SyncProgress& progress,
                                      std::uint64_t& wire_bytes, Failure& failure)>;

// SyncClient::push: walks the local tree, then sends every file over the one stream with up to
// kMaxDeferred acknowledgements outstanding, as AOSP does (a compressed one through compress);
// with sender, each regular file goes through it instead (links and the plan's requests stay on
// channel, and compress may be null).
TransferStats push_files(SyncChannel& channel, const std::vector<std::filesystem::path>& locals,
                         std::string_view remote, const PushOptions& options, Failure& failure,
                         SendCompressed compress, const FileSender* sender = nullptr);

// "/a/b/" → "b"; "/" → "".
std::string remote_basename(std::string_view path);
// folder + "/" + name, with one slash.
std::string remote_join(std::string_view folder, std::string_view name);

}  // namespace adbwire::detail
