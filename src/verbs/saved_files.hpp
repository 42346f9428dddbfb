// Where the files a verb saves go (a snapshot too long for a reply, a page source, a
// screenshot): they show the screen (messages, account names), so they go into a folder only
// this user can read, under names no other user can take first (base/private_files.hpp).
// Internal; the MCP server and the Python package share it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/failure.hpp"
#include "base/private_files.hpp"

namespace adbwire::verbs {

// Not thread safe: one per Host, used by its calls.
class SavedFiles {
 public:
  // folder "" = <private runtime folder>/<runtime_name>, made 0700 on the first save; a folder
  // given here must be this user's and not writable by others, and when others may enter it
  // (any group or other bit) the files go into <folder>/<runtime_name>, 0700. `advice` ends the
  // message of a failed save (what the user can change).
  SavedFiles(std::filesystem::path folder, std::string runtime_name, std::string advice);

  // Saves bytes as <stem>-<n><extension> of suggested_name and returns the path. Throws
  // Error (io_error, permission_denied) naming the file, the reason and the advice.
  std::string save(std::string_view suggested_name, std::string_view bytes);
  // A path for a file of that name the caller writes itself (a pull): the folder made and
  // checked as for save, the name not used before by this object.
  std::filesystem::path reserve(std::string_view suggested_name);

 private:
  std::filesystem::path folder_;
  std::string runtime_name_;
  std::string advice_;
  // The private folder, made on first use and checked each time. Throws as save does.
  detail::FolderFd open_folder(std::string_view name);
  [[noreturn]] void throw_failure(std::string_view name, const detail::Failure& failure) const;
  std::string next_name(std::string_view suggested_name);

  std::uint64_t saved_ = 0;
  bool own_folder_ = false;  // folder_ was made here: held to FolderTrust::own
};

}  // namespace adbwire::verbs
