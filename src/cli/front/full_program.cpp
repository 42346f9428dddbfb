#include "cli/front/full_program.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "adbwire/error.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli::front {

namespace fs = std::filesystem;

fs::path full_program_path() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  const fs::path folder = self.parent_path();
  const fs::path beside = folder / "adbwire-full";
  const fs::path installed = (folder / ADBWIRE_FULL_FROM_BIN).lexically_normal();
  for (const fs::path& candidate : {beside, installed}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw Error(errc::not_found, "cannot find adbwire-full, the program behind adbwire: not at " +
                                   beside.string() + " nor at " + installed.string() +
                                   "; reinstall adbwire");
}

int exec_full_program(char** argv) {
  try {
    const fs::path program = full_program_path();
    ::execv(program.c_str(), argv);
    print_error("adbwire: error: cannot run " + program.string() + ": " + std::strerror(errno));
  } catch (const std::exception& e) {
    print_error("adbwire: error: " + std::string(e.what()));
  }
  return 127;
}

}  // namespace adbwire::cli::front
