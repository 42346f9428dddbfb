#include "cli/runtime_folder.hpp"

#include "adbwire/error.hpp"
#include "base/private_files.hpp"

namespace adbwire::cli {

std::filesystem::path private_runtime_folder() {
  detail::Failure failure;
  std::filesystem::path folder = detail::private_runtime_folder(failure);
  failure.throw_if_failed();
  return folder;
}

}  // namespace adbwire::cli
