// File transfer with a device over its "sync:" service: stat, list, pull and push of files
// and whole directories, with modes and mtimes kept and a progress callback.
//
// Nothing is lost: a pull writes into a hidden temporary file beside the destination
// (".NAME.adbwire-XXXXXX") and renames it over NAME only once every byte arrived, so a
// failed or interrupted pull leaves no file under the final name (and no temporary file).
// A refusal by the device (sync FAIL) is errc::command_failed with the device's words.
//
// A device is untrusted input. What it lists never decides where a pull writes: every entry
// name must be one path component (not empty, no '/', no NUL byte, not "." or ".."), else the
// pull fails before anything is written (errc::protocol_error, the name quoted with its control
// characters escaped). Files and folders are created relative to the destination folder's
// descriptor and never through a symbolic link found inside it (one there is an io_error naming
// it); a temporary file is created with O_EXCL. Nothing the pull did not create is chmodded or
// re-dated. Modes kept with keep_attributes are `mode & 0777 & ~umask`, as AOSP's adb applies
// them: never setuid, setgid or sticky. How many entries, how long names and how deep a tree a
// device may make a pull hold is bounded by SyncLimits.
//
// Compression: with sync v2 (feature sendrecv_v2), file content can travel as one brotli,
// LZ4-frame or zstd stream per file, as AOSP's adb does, when the device lists the matching
// sendrecv_v2_<algorithm> feature. By default the best both sides offer is used (zstd, then
// lz4, then brotli); otherwise transfers are plain.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// A file's metadata on the device. Devices without the stat_v2 feature report only mode,
// size (cut to 32 bits) and mtime; the other fields are then 0.
struct RemoteStat {
  std::uint32_t mode = 0;  // st_mode: type and permission bits
  std::uint64_t size = 0;
  std::int64_t mtime = 0;  // seconds since the epoch
  std::int64_t atime = 0;
  std::int64_t ctime = 0;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint32_t nlink = 0;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;

  bool is_directory() const noexcept;
  bool is_regular() const noexcept;
  bool is_symlink() const noexcept;
};

// One directory entry ("." and ".." are left out).
struct RemoteEntry {
  std::string name;
  RemoteStat stat;
};

// Where a transfer stands; passed to SyncProgressHandler after every chunk and once when
// a file completes. The views are valid only during the call.
struct SyncProgress {
  std::string_view remote;  // the file being transferred
  std::string_view local;
  std::uint64_t file_bytes = 0;  // of this file, so far
  std::uint64_t file_size = 0;
  std::uint64_t total_bytes = 0;  // of the whole call, so far
  std::uint64_t total_size = 0;   // of every file the call transfers
  std::size_t files_done = 0;
  std::size_t files_total = 0;
};

// Called on the calling thread. It may throw: the transfer stops, cleans up as on any
// failure, and the exception propagates.
using SyncProgressHandler = std::function<void(const SyncProgress&)>;

// How file content travels (PullOptions/PushOptions::compression), adb's -z/-Z.
enum class SyncCompression {
  any,     // the best the device offers: zstd, then lz4, then brotli; plain if none
  none,    // plain (adb -Z)
  brotli,  // each of these only when the device offers it, plain otherwise
  lz4,
  zstd,
};

// "any", "none", "brotli", "lz4", "zstd".
std::string_view to_string(SyncCompression compression) noexcept;
// The inverse of to_string (exact, lower case); false for anything else.
bool parse_sync_compression(std::string_view text, SyncCompression& out) noexcept;

// Bounds on what a device can make the host hold. A device decides how many entries a folder
// lists, how long their names are, how deep a tree goes and how many bytes a file turns out to
// have; past a bound the call fails with errc::limit_exceeded, naming the bound and its field
// here, before the host's memory, disk or time follows the device.
struct SyncLimits {
  std::size_t max_listing_entries = 1'000'000;  // entries in one folder listing
  std::size_t max_tree_entries = 1'000'000;     // files and folders in one pull
  std::size_t max_name_length = 255;            // bytes of one entry name (Linux's NAME_MAX)
  std::size_t max_depth = 128;                  // folder levels below a pulled folder
  // Bytes of memory one listing (list()) or one pull's plan may hold: about 100 bytes an entry
  // plus its name, so long names cannot multiply what max_listing_entries allows.
  std::size_t max_memory = 128 * 1024 * 1024;
  // Bytes a pulled file may have beyond the size its stat or listing announced (a log that grew
  // meanwhile). Past it, compressed or not, the pull fails and nothing is left under the final
  // name: a device announcing 10 bytes cannot fill the disk with a compression bomb. Devices
  // without stat_v2 announce sizes cut to 32 bits, so a file of 4 GiB or more pulled from one
  // needs this raised.
  std::uint64_t file_slack = 1024 * 1024;
  // Bytes one pulled file may have at all, for a caller that knows how large what it wants can
  // be (an APK read for its label, a photo): a file announced larger fails before a byte is
  // written, and one that grows past it fails as it arrives, leaving nothing. The first stat a
  // caller makes cannot bound the pull, which asks the device again.
  std::uint64_t max_file_bytes = std::numeric_limits<std::uint64_t>::max();
};

struct PullOptions {
  // Give pulled files (and folders the pull creates) the device's permission bits, masked
  // with 0777 and the process umask, and mtime. Otherwise files get 0644 and folders 0777,
  // both masked with the umask, and the current time, as `adb pull` without -a.
  bool keep_attributes = true;
  SyncProgressHandler progress;
  // The whole call ends by then (errc::timeout), checked while data flows as well as while
  // waiting. kDefaultDeadline instead bounds each wait for the device by
  // ConnectOptions::command_timeout, so a long transfer that keeps moving never times out but
  // a stalled one does.
  Deadline deadline = kDefaultDeadline;
  // Asked of the device for each file (RCV2 flags). Corrupt compressed data from the device
  // is errc::protocol_error naming the algorithm, and leaves no file under the final name.
  SyncCompression compression = SyncCompression::any;
  SyncLimits limits;
  // Files pulled 0600 and folders made 0700, whatever the device's modes and keep_attributes
  // (mtimes are kept as keep_attributes says): for files adbwire keeps for itself, such as a
  // screen recording.
  bool private_files = false;
};

struct PushOptions {
  SyncProgressHandler progress;
  Deadline deadline = kDefaultDeadline;  // as PullOptions::deadline
  // How the host sends each file (SND2 flags); as PullOptions::compression.
  SyncCompression compression = SyncCompression::any;
};

// What a pull or push moved.
struct TransferStats {
  std::size_t files = 0;
  std::size_t skipped = 0;  // neither regular files, folders nor links to files (devices, FIFOs)
  std::uint64_t bytes = 0;  // file content moved
  std::uint64_t wire_bytes = 0;  // of which on the wire: the DATA payloads, compressed or not
  SyncCompression compression = SyncCompression::none;  // what was used (none: plain)
  std::chrono::nanoseconds elapsed{0};
};

// One sync stream to a device. Requests use the v2 forms (STA2/LST2/LIS2/SND2/RCV2) when
// the device offers stat_v2/ls_v2/sendrecv_v2, the v1 forms otherwise. Many files go over
// the one stream; pushes of many files do not wait for each file's acknowledgement.
// After a device FAIL (the device then ends the stream) the next call opens a new stream.
//
// Errors common to every call: device_offline (the connection dropped), timeout, closed
// (the Device was closed), protocol_error (the device broke the sync protocol). Not thread
// safe: one SyncClient per thread; the Device must outlive it. last_error() keeps the
// detail of the last failure for callers of the error_code overloads.
class SyncClient {
 public:
  // Opens "sync:". Errors as Device::open (not_supported: the device refused sync).
  explicit SyncClient(Device& device, Deadline deadline = kDefaultDeadline);
  SyncClient(Device& device, Deadline deadline, std::error_code& error);
  SyncClient(SyncClient&&) noexcept;
  SyncClient& operator=(SyncClient&&) noexcept;
  // Closes the stream, which ends sync mode on the device; never blocks.
  ~SyncClient();

  // stat follows symlinks, lstat does not (without stat_v2 both are lstat, as in adb).
  // Errors also: not_found (no such path), permission_denied, command_failed (another
  // errno, named in the detail).
  RemoteStat stat(std::string_view path, Deadline deadline = kDefaultDeadline);
  RemoteStat stat(std::string_view path, Deadline deadline, std::error_code& error);
  RemoteStat lstat(std::string_view path, Deadline deadline = kDefaultDeadline);
  RemoteStat lstat(std::string_view path, Deadline deadline, std::error_code& error);

  // The entries of a folder, in the device's order. A missing or unreadable folder lists
  // as empty, as adbd reports it. Errors also: protocol_error (an entry name that is not one
  // path component, quoted escaped), limit_exceeded (more than limits.max_listing_entries
  // entries, or a name longer than limits.max_name_length, or more than limits.max_memory
  // bytes held).
  std::vector<RemoteEntry> list(std::string_view path, Deadline deadline = kDefaultDeadline);
  std::vector<RemoteEntry> list(std::string_view path, Deadline deadline, std::error_code& error);
  std::vector<RemoteEntry> list(std::string_view path, const SyncLimits& limits, Deadline deadline,
                                std::error_code& error);

  // Copies remote files or folders (recursively) to local, like `adb pull`: with one
  // remote, local may name the copy or an existing folder to put it in (missing parent
  // folders are created); with several, local must be an existing folder. Errors also:
  // not_found (a remote path does not exist), invalid_argument (several remotes and local
  // is not a folder), command_failed (the device's FAIL text), io_error (local disk, or a
  // symbolic link inside the destination where the pull would write), protocol_error (an
  // unsafe entry name), limit_exceeded (options.limits; a file larger than announced by more
  // than limits.file_slack fails while it arrives, leaving no file under its name), timeout
  // (options.deadline, or a wait longer than command_timeout). Names and the bounds of the plan
  // are checked while planning, before anything is written. Stops at the first failure; files
  // completed before it stay. A pull ended by SIGINT, SIGTERM or SIGHUP leaves no temporary
  // file (the process then ends by that signal).
  TransferStats pull(std::string_view remote, const std::filesystem::path& local,
                     const PullOptions& options = {});
  TransferStats pull(std::string_view remote, const std::filesystem::path& local,
                     const PullOptions& options, std::error_code& error);
  TransferStats pull(const std::vector<std::string>& remotes, const std::filesystem::path& local,
                     const PullOptions& options = {});
  TransferStats pull(const std::vector<std::string>& remotes, const std::filesystem::path& local,
                     const PullOptions& options, std::error_code& error);

  // Copies local files or folders (recursively) to the device, like `adb push`: files keep
  // their permission bits and mtime; remote may name the copy or an existing folder; with
  // several locals it must be a folder. The device creates missing parent folders; empty
  // local folders are created with `mkdir -p`. Errors also: not_found (a local path does
  // not exist), invalid_argument, command_failed (the device's FAIL text), io_error.
  TransferStats push(const std::filesystem::path& local, std::string_view remote,
                     const PushOptions& options = {});
  TransferStats push(const std::filesystem::path& local, std::string_view remote,
                     const PushOptions& options, std::error_code& error);
  TransferStats push(const std::vector<std::filesystem::path>& locals, std::string_view remote,
                     const PushOptions& options = {});
  TransferStats push(const std::vector<std::filesystem::path>& locals, std::string_view remote,
                     const PushOptions& options, std::error_code& error);

  // The detail of the last failed call ("" after a success).
  const std::string& last_error() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot conveniences: a SyncClient for one call.
TransferStats pull(Device& device, std::string_view remote, const std::filesystem::path& local,
                   const PullOptions& options = {});
TransferStats pull(Device& device, std::string_view remote, const std::filesystem::path& local,
                   const PullOptions& options, std::error_code& error);
TransferStats push(Device& device, const std::filesystem::path& local, std::string_view remote,
                   const PushOptions& options = {});
TransferStats push(Device& device, const std::filesystem::path& local, std::string_view remote,
                   const PushOptions& options, std::error_code& error);

}  // namespace adbwire
