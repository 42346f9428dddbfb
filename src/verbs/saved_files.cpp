#include "verbs/saved_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <utility>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/private_files.hpp"

namespace adbwire::verbs {

namespace fs = std::filesystem;

namespace {
constexpr int kNamesTried = 10000;
}  // namespace

SavedFiles::SavedFiles(fs::path folder, std::string runtime_name, std::string advice)
    : folder_(std::move(folder)),
      runtime_name_(std::move(runtime_name)),
      advice_(std::move(advice)) {}

detail::FolderFd SavedFiles::open_folder(std::string_view name) {
  detail::Failure failure;
  if (folder_.empty()) {
    const fs::path runtime = detail::private_runtime_folder(failure);
    if (!failure) {
      own_folder_ = true;
      folder_ = runtime / runtime_name_;
    }
  }
  detail::FolderFd folder;
  if (!failure) {
    folder = detail::open_private_folder(
        folder_, own_folder_ ? detail::FolderTrust::own : detail::FolderTrust::chosen, failure);
  }
  struct stat st {};
  if (folder && !own_folder_ && ::fstat(folder.get(), &st) == 0 && (st.st_mode & 077) != 0) {
    // Others may enter the folder given: the files go into a folder of their own inside it,
    // which only this user can.
    folder_ /= runtime_name_;
    own_folder_ = true;
    folder = detail::open_private_folder(folder_, detail::FolderTrust::own, failure);
  }
  if (failure) throw_failure(name, failure);
  return folder;
}

void SavedFiles::throw_failure(std::string_view name, const detail::Failure& failure) const {
  throw Error(failure.code, "cannot save " + std::string(name) + ": " + failure.detail +
                                (advice_.empty() ? "" : "; " + advice_));
}

std::string SavedFiles::next_name(std::string_view suggested_name) {
  const fs::path suggested(suggested_name);
  return suggested.stem().string() + "-" + std::to_string(++saved_) +
         suggested.extension().string();
}

std::string SavedFiles::save(std::string_view suggested_name, std::string_view bytes) {
  const detail::FolderFd folder = open_folder(suggested_name);
  // Names another server saved under stay its own: a path once handed out keeps its content.
  for (int tried = 0;; ++tried) {
    const std::string name = next_name(suggested_name);
    detail::Failure failure;
    if (detail::write_private_file(folder.get(), name, bytes, failure, detail::Existing::keep))
      return (folder_ / name).string();
    if (failure.code != errc::busy || tried == kNamesTried) throw_failure(name, failure);
  }
}

fs::path SavedFiles::reserve(std::string_view suggested_name) {
  const detail::FolderFd folder = open_folder(suggested_name);
  for (int tried = 0;; ++tried) {
    const std::string name = next_name(suggested_name);
    struct stat seen {};
    if (::fstatat(folder.get(), name.c_str(), &seen, AT_SYMLINK_NOFOLLOW) != 0)
      return folder_ / name;
    if (tried == kNamesTried) {
      detail::Failure failure;
      failure.set(errc::busy, "every name like it is taken");
      throw_failure(name, failure);
    }
  }
}

}  // namespace adbwire::verbs
