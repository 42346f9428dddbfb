#include "cli/runtime_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "adbwire/error.hpp"

namespace adbwire::cli {

std::filesystem::path private_runtime_folder() {
  namespace fs = std::filesystem;
  fs::path folder;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != 0) {
    folder = fs::path(runtime) / "adbwire";
  } else {
    folder = fs::temp_directory_path() / ("adbwire-" + std::to_string(::getuid()));
  }
  ::mkdir(folder.c_str(), 0700);
  struct stat info {};
  if (::lstat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid() ||
      (info.st_mode & 077) != 0) {
    throw Error(errc::permission_denied,
                folder.string() +
                    " must be a folder owned by you with mode 0700; remove it, or set "
                    "XDG_RUNTIME_DIR to a private folder");
  }
  return folder;
}

}  // namespace adbwire::cli
