#include "services/pull_plan.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "adbwire/protocol/printable.hpp"

namespace adbwire::detail {
namespace {

// Names quoted in messages are cut: a device could send a name of megabytes.
constexpr std::size_t kQuotedNameBytes = 200;

std::string quote_name(std::string_view text) {
  return "\"" + protocol::printable(text, kQuotedNameBytes) + "\"";
}

std::string join(std::string_view folder, std::string_view name) {
  std::string joined(folder);
  if (joined.empty() || joined.back() != '/') joined += '/';
  joined += name;
  return joined;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

}  // namespace

const char* unsafe_name_reason(std::string_view name, std::size_t max_length) noexcept {
  if (name.empty()) return "is empty";
  if (name == "." || name == "..") return "is a reference to a folder ('.' or '..')";
  if (name.find('/') != std::string_view::npos) return "contains '/'";
  if (name.find('\0') != std::string_view::npos) return "contains a NUL byte";
  if (name.size() > max_length) return "is too long";
  return nullptr;
}

bool check_listed_entry(std::size_t ordinal, std::string_view name, std::string_view where,
                        const SyncLimits& limits, Failure& failure) {
  if (ordinal > limits.max_listing_entries) {
    failure.set(errc::limit_exceeded,
                "the device listed more than " + std::to_string(limits.max_listing_entries) +
                    " entries in " + quote_name(where) +
                    " (SyncLimits::max_listing_entries); raise the limit if the folder is really "
                    "that large");
    return false;
  }
  const char* reason = unsafe_name_reason(name, limits.max_name_length);
  if (reason == nullptr) return true;
  if (name.size() > limits.max_name_length && unsafe_name_reason(name, name.size()) == nullptr) {
    failure.set(errc::limit_exceeded,
                "the device listed a name of " + std::to_string(name.size()) + " bytes in " +
                    quote_name(where) + ", longer than the limit of " +
                    std::to_string(limits.max_name_length) + " (SyncLimits::max_name_length)");
    return false;
  }
  failure.set(errc::protocol_error,
              "the device listed an entry named " + quote_name(name) + " in " + quote_name(where) +
                  ", which " + reason +
                  ": a name must be one path component, so adbwire refuses it (a broken or "
                  "hostile device)");
  return false;
}

bool hold_memory(std::size_t& held, std::size_t bytes, std::string_view where,
                 const SyncLimits& limits, Failure& failure) {
  held += bytes;
  if (held <= limits.max_memory) return true;
  failure.set(errc::limit_exceeded,
              "the device's listing of " + quote_name(where) + " would hold more than " +
                  std::to_string(limits.max_memory) +
                  " bytes of entries and names (SyncLimits::max_memory); raise the limit if the "
                  "folder is really that large");
  return false;
}

bool PullPlan::add_entry(PlanEntry entry, std::string_view where, Failure& failure) {
  if (!hold_memory(held_, sizeof(PlanEntry) + entry.name.size(), where, limits_, failure))
    return false;
  if (entries_.size() >= limits_.max_tree_entries) {
    failure.set(errc::limit_exceeded,
                "the pull would hold more than " + std::to_string(limits_.max_tree_entries) +
                    " files and folders (SyncLimits::max_tree_entries); raise the limit or pull "
                    "a smaller folder");
    return false;
  }
  entries_.push_back(std::move(entry));
  return true;
}

bool PullPlan::build(const std::vector<PullRoot>& roots, PullLister& lister, Failure& failure) {
  std::vector<std::uint32_t> folders;  // still to list, the next one last
  for (const PullRoot& root : roots) {
    RemoteStat st;
    if (!lister.stat(root.remote, st, failure)) return false;
    PlanEntry entry;
    entry.name = root.local_name;
    entry.mode = st.mode;
    entry.size = st.size;
    entry.mtime = st.mtime;
    entry.kind = st.is_directory() ? PlanKind::folder : PlanKind::file;
    const auto index = static_cast<std::uint32_t>(entries_.size());
    if (!add_entry(std::move(entry), root.remote, failure)) return false;
    roots_.emplace_back(index, root.remote);
    if (entries_[index].kind == PlanKind::file) {
      ++files_;
      total_size_ = saturating_add(total_size_, st.size);
      continue;
    }
    folders.push_back(index);
    while (!folders.empty()) {
      const std::uint32_t folder = folders.back();
      folders.pop_back();
      if (!list_folder(folder, lister, folders, failure)) return false;
    }
  }
  return true;
}

bool PullPlan::list_folder(std::uint32_t folder, PullLister& lister,
                           std::vector<std::uint32_t>& folders, Failure& failure) {
  const std::string where = remote_path(folder);
  const std::uint32_t depth = entries_[folder].depth + 1;
  const auto first = static_cast<std::uint32_t>(entries_.size());
  std::vector<std::uint32_t> links;
  std::size_t listed = 0;
  const bool listed_ok = lister.list(
      where,
      [&](std::string&& name, const RemoteStat& st) {
        if (!check_listed_entry(++listed, name, where, limits_, failure)) return false;
        if (!st.is_directory() && !st.is_regular() && !st.is_symlink()) {
          ++skipped_;  // devices, FIFOs, sockets
          return true;
        }
        if (st.is_directory() && depth > limits_.max_depth) {
          failure.set(errc::limit_exceeded, "the device's tree goes deeper than " +
                                                std::to_string(limits_.max_depth) + " folders at " +
                                                quote_name(join(where, name)) +
                                                " (SyncLimits::max_depth)");
          return false;
        }
        PlanEntry entry;
        entry.parent = folder;
        entry.depth = depth;
        entry.name = std::move(name);
        entry.mode = st.mode;
        entry.size = st.size;
        entry.mtime = st.mtime;
        entry.kind = st.is_directory() ? PlanKind::folder : PlanKind::file;
        const auto index = static_cast<std::uint32_t>(entries_.size());
        if (!add_entry(std::move(entry), where, failure)) return false;
        if (st.is_symlink()) links.push_back(index);
        return true;
      },
      failure);
  if (!listed_ok) return false;
  // A link to a file is pulled as the file; links to folders are not followed (loops).
  for (const std::uint32_t link : links) {
    RemoteStat target;
    Failure link_failure;
    if (lister.stat(remote_path(link), target, link_failure) && target.is_regular()) {
      entries_[link].mode = target.mode;
      entries_[link].size = target.size;
      entries_[link].mtime = target.mtime;
    } else if (!link_failure || link_failure.code == errc::not_found ||
               link_failure.code == errc::permission_denied) {
      entries_[link].kind = PlanKind::skipped;
    } else {
      failure = std::move(link_failure);
      return false;
    }
  }
  for (auto i = static_cast<std::uint32_t>(entries_.size()); i-- > first;) {
    switch (entries_[i].kind) {
      case PlanKind::folder:
        folders.push_back(i);  // pushed last-first, so listed in the device's order
        break;
      case PlanKind::file:
        ++files_;
        total_size_ = saturating_add(total_size_, entries_[i].size);
        break;
      case PlanKind::skipped:
        ++skipped_;
        break;
    }
  }
  return true;
}

std::string PullPlan::remote_path(std::uint32_t i) const {
  std::vector<std::uint32_t> chain;
  std::uint32_t at = i;
  while (entries_[at].parent != kNoParent) {
    chain.push_back(at);
    at = entries_[at].parent;
  }
  std::string path;
  for (const auto& [index, remote] : roots_) {
    if (index == at) path = remote;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) path = join(path, entries_[*it].name);
  return path;
}

std::string PullPlan::local_path(std::uint32_t i) const {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t at = i; at != kNoParent; at = entries_[at].parent) chain.push_back(at);
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (entries_[*it].name.empty()) continue;
    if (!path.empty()) path += '/';
    path += entries_[*it].name;
  }
  return path;
}

}  // namespace adbwire::detail
