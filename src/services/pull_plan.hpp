// The plan of a pull: what a device lists, checked and kept compact before a byte is written.
//
// A device names the entries of the folders it lists, so every name is checked here to be a
// single path component, and the device's listing sizes, name lengths and tree depth are held
// to SyncLimits. The plan stores each entry once as (parent, name, stat): no joined paths, and
// counts the bytes it holds, so its memory is bounded by the limits (max_memory in bytes, whatever
// the names' lengths) and not by what the device sends. Planning talks to the
// device only through PullLister, so it is tested and fuzzed without one. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/sync.hpp"
#include "base/failure.hpp"

namespace adbwire::detail {

// Why `name` from a device cannot name a file on the host ("is empty", "contains '/'", …), or
// nullptr when it is a single path component. Length is checked against max_length bytes.
const char* unsafe_name_reason(std::string_view name, std::size_t max_length) noexcept;

// Checks the entry numbered `ordinal` (from 1) of the listing of `where`: limit_exceeded past
// limits.max_listing_entries or for a name over limits.max_name_length, protocol_error for a
// name that is not one path component. Names are quoted escaped in the message.
bool check_listed_entry(std::size_t ordinal, std::string_view name, std::string_view where,
                        const SyncLimits& limits, Failure& failure);

// Counts `bytes` more held for a listing or plan of `where`: limit_exceeded once the total passes
// limits.max_memory.
bool hold_memory(std::size_t& held, std::size_t bytes, std::string_view where,
                 const SyncLimits& limits, Failure& failure);

// What planning asks of the device.
class PullLister {
 public:
  virtual ~PullLister() = default;
  // Stats path, following links.
  virtual bool stat(std::string_view path, RemoteStat& result, Failure& failure) = 0;
  // Lists path: each entry but "." and ".." goes to on_entry, which returns false to stop
  // (having set failure); list then returns false and the stream is not to be reused as is.
  virtual bool list(std::string_view path,
                    const std::function<bool(std::string&& name, const RemoteStat&)>& on_entry,
                    Failure& failure) = 0;
};

inline constexpr std::uint32_t kNoParent = 0xFFFFFFFF;

enum class PlanKind : std::uint8_t {
  file,    // pulled (a link to a file is pulled as its target)
  folder,  // created
  skipped  // a link to a folder (loops), a dangling link: counted, not pulled
};

struct PlanEntry {
  std::uint32_t parent = kNoParent;  // index of the folder it was listed in; kNoParent: a root
  std::uint32_t depth = 0;           // 0 for a root
  std::string name;                  // a root: its name in the destination ("" = the folder itself)
  std::uint32_t mode = 0;            // of the file itself (a link to a file: of its target)
  std::uint64_t size = 0;
  std::int64_t mtime = 0;
  PlanKind kind = PlanKind::file;
};

struct PullRoot {
  std::string remote;      // as the caller gave it
  std::string local_name;  // its name in the destination folder; "" = the folder itself
};

class PullPlan {
 public:
  explicit PullPlan(const SyncLimits& limits) : limits_(limits) {}

  // Stats each root and lists every folder below it, depth first. Links to files are planned
  // as their target; links to folders (loops), dangling links and special files are counted
  // in `skipped`. Errors: the lister's, not_found (a root does not exist), protocol_error (an
  // unsafe name), limit_exceeded (a SyncLimits bound, named in the detail).
  bool build(const std::vector<PullRoot>& roots, PullLister& lister, Failure& failure);

  const std::vector<PlanEntry>& entries() const noexcept { return entries_; }
  std::size_t skipped() const noexcept { return skipped_; }
  std::size_t file_count() const noexcept { return files_; }
  std::uint64_t total_size() const noexcept { return total_size_; }

  // The device path of entry i: its root's remote path plus the names below it.
  std::string remote_path(std::uint32_t i) const;
  // Entry i's path relative to the destination folder, for messages and progress.
  std::string local_path(std::uint32_t i) const;

 private:
  bool add_entry(PlanEntry entry, std::string_view where, Failure& failure);
  bool list_folder(std::uint32_t folder, PullLister& lister, std::vector<std::uint32_t>& folders,
                   Failure& failure);

  SyncLimits limits_;
  std::vector<PlanEntry> entries_;
  std::vector<std::pair<std::uint32_t, std::string>> roots_;  // root entry index, remote path
  std::size_t skipped_ = 0;
  std::size_t held_ = 0;  // bytes of entries and names (SyncLimits::max_memory)
  std::size_t files_ = 0;
  std::uint64_t total_size_ = 0;
};

}  // namespace adbwire::detail
