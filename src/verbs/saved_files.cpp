#include "verbs/saved_files.hpp"

#include <utility>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/private_files.hpp"

namespace adbwire::verbs {

namespace fs = std::filesystem;

SavedFiles::SavedFiles(fs::path folder, std::string runtime_name, std::string advice)
    : folder_(std::move(folder)),
      runtime_name_(std::move(runtime_name)),
      advice_(std::move(advice)) {}

fs::path SavedFiles::checked_folder(detail::Failure& failure) {
  if (folder_.empty()) {
    const fs::path runtime = detail::private_runtime_folder(failure);
    if (failure) return {};
    own_folder_ = true;
    folder_ = runtime / runtime_name_;
  }
  detail::open_private_folder(
      folder_, own_folder_ ? detail::FolderTrust::own : detail::FolderTrust::chosen, failure);
  return folder_;
}

std::string SavedFiles::next_name(std::string_view suggested_name) {
  const fs::path suggested(suggested_name);
  return suggested.stem().string() + "-" + std::to_string(++saved_) +
         suggested.extension().string();
}

std::string SavedFiles::save(std::string_view suggested_name, std::string_view bytes) {
  detail::Failure failure;
  const std::string name = next_name(suggested_name);
  checked_folder(failure);
  if (!failure) {
    const detail::FolderFd folder = detail::open_private_folder(
        folder_, own_folder_ ? detail::FolderTrust::own : detail::FolderTrust::chosen, failure);
    if (folder) detail::write_private_file(folder.get(), name, bytes, failure);
  }
  if (failure) {
    throw Error(failure.code, "cannot save " + name + ": " + failure.detail +
                                  (advice_.empty() ? "" : "; " + advice_));
  }
  return (folder_ / name).string();
}

fs::path SavedFiles::reserve(std::string_view suggested_name) {
  detail::Failure failure;
  const std::string name = next_name(suggested_name);
  checked_folder(failure);
  if (failure) {
    throw Error(failure.code, "cannot save " + name + ": " + failure.detail +
                                  (advice_.empty() ? "" : "; " + advice_));
  }
  return folder_ / name;
}

}  // namespace adbwire::verbs
