// Small-file I/O for key files: whole-file reads and replace-by-rename writes, with errors
// that name the path.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace adbwire::auth {

// A failure as the API pairs need it: the code for `std::error_code&` callers and the
// sentence (with the path) for the exception.
struct Status {
  std::error_code code;
  std::string detail;

  bool ok() const noexcept { return !code; }
};

// errno → errc: ENOENT/ENOTDIR → not_found, EACCES/EPERM/EROFS → permission_denied,
// anything else → io_error.
std::error_code error_from_errno(int err) noexcept;

// Fills `status` from errno with "<what> <path>: <strerror>".
void set_errno_status(Status& status, int err, std::string_view what,
                      const std::filesystem::path& path);

// Reads a whole regular file of at most `max_size` bytes. Errors: not_found,
// permission_denied, io_error (not a regular file, read failure), parse_error (too large).
std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_size,
                                           Status& status);

// A file written next to its final path under a unique temporary name, then renamed into
// place by commit(); removed by the destructor unless committed, so a failed save never
// leaves a partial file under the final name nor a stray temporary.
class PendingFile {
 public:
  // Creates and fills the temporary with `contents`, flushed to disk. With exact_mode the
  // file gets exactly `mode`; otherwise `mode` is filtered by the umask like open(2).
  static std::optional<PendingFile> write(const std::filesystem::path& final_path,
                                          std::string_view contents, mode_t mode, bool exact_mode,
                                          Status& status);

  // Atomically replaces final_path with the temporary.
  bool commit(Status& status);

  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&&) = delete;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();

 private:
  PendingFile(std::filesystem::path temp_path, std::filesystem::path final_path);

  std::filesystem::path temp_path_;
  std::filesystem::path final_path_;
};

}  // namespace adbwire::auth
