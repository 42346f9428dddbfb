// Which keys the host offers, found the way AOSP's client/auth.cpp and adb_utils.cpp find
// them: ~/.android/adbkey (generated on first use), then $ADB_VENDOR_KEYS.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/keys.hpp"
#include "auth/key_factory.hpp"
#include "auth/key_files.hpp"
#include "base/advice.hpp"
#include "base/failure.hpp"

namespace adbwire {
namespace {

constexpr std::string_view kVendorKeySuffix = ".adb_key";
// Private to the user: it holds the private key. (adb makes it 0750; the key file itself is
// 0600 either way.)
constexpr mode_t kAndroidDirMode = 0700;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string passwd_entry(bool home) {
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  if (size <= 0) size = 16384;
  std::vector<char> buffer(static_cast<std::size_t>(size));
  passwd entry{};
  passwd* result = nullptr;
  if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &result) != 0 || !result) {
    return {};
  }
  const char* field = home ? result->pw_dir : result->pw_name;
  return field ? field : "";
}

std::filesystem::path android_dir(const KeyOptions& options) {
  if (!options.android_dir.empty()) return options.android_dir;
  std::string home = env_or_empty("HOME");
  if (home.empty()) home = passwd_entry(true);
  if (home.empty()) return {};
  return std::filesystem::path(home) / ".android";
}

std::vector<std::filesystem::path> vendor_key_paths(const KeyOptions& options) {
  if (!options.vendor_keys.empty()) return options.vendor_keys;
  std::vector<std::filesystem::path> paths;
  const std::string list = env_or_empty("ADB_VENDOR_KEYS");
  std::string_view rest = list;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    if (!entry.empty()) paths.emplace_back(entry);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  return paths;
}

void add_distinct(std::vector<PrivateKey>& keys, PrivateKey key) {
  const bool known = std::any_of(keys.begin(), keys.end(), [&](const PrivateKey& existing) {
    return auth::KeyFactory::same_key(existing, key);
  });
  if (!known) keys.push_back(std::move(key));
}

void add_key_file(std::vector<PrivateKey>& keys, const std::filesystem::path& file) {
  auth::Status ignored;
  if (auto key = auth::KeyFactory::load(file, ignored)) add_distinct(keys, std::move(*key));
}

// A vendor entry: a file is a key whatever its name; a directory contributes its
// "*.adb_key" entries, not recursively (adb's load_keys). Anything unreadable is skipped.
void add_vendor_keys(std::vector<PrivateKey>& keys, const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) return;
  if (std::filesystem::is_regular_file(status)) {
    add_key_file(keys, path);
    return;
  }
  if (!std::filesystem::is_directory(status)) return;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.ends_with(kVendorKeySuffix)) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) add_key_file(keys, file);
}

std::optional<PrivateKey> load_or_create_user_key(const KeyOptions& options, auth::Status& status) {
  const std::filesystem::path dir = android_dir(options);
  if (dir.empty()) {
    status.code = make_error_code(errc::not_found);
    status.detail =
        "cannot find the adb key directory: HOME is unset and the user has no passwd entry; "
        "set HOME or " +
        std::string(detail::advice("KeyOptions::android_dir", "ConnectOptions.android_dir"));
    return std::nullopt;
  }
  const std::filesystem::path key_path = dir / "adbkey";
  struct stat st {};
  if (::stat(key_path.c_str(), &st) == 0) return auth::KeyFactory::load(key_path, status);
  const int stat_errno = errno;
  if (stat_errno != ENOENT) {
    auth::set_errno_status(status, stat_errno, "cannot look for the adb key", key_path);
    return std::nullopt;
  }
  if (!options.generate_if_missing) {
    status.code = make_error_code(errc::not_found);
    status.detail = "no adb key at " + key_path.string() + "; create one with `adb keygen " +
                    key_path.string() + "` or allow generation";
    return std::nullopt;
  }
  if (::mkdir(dir.c_str(), kAndroidDirMode) != 0 && errno != EEXIST) {
    auth::set_errno_status(status, errno, "cannot create the adb key directory", dir);
    return std::nullopt;
  }
  auto generated = auth::KeyFactory::generate(status);
  if (!generated || !auth::KeyFactory::save(*generated, key_path, default_key_comment(), status)) {
    return std::nullopt;
  }
  // Read back what is on disk, as adb does: if another process raced us to create the key,
  // both end up using the one that won the rename.
  return auth::KeyFactory::load(key_path, status);
}

std::vector<PrivateKey> collect_host_keys(const KeyOptions& options, auth::Status& status) {
  auto user_key = load_or_create_user_key(options, status);
  if (!user_key) return {};
  std::vector<PrivateKey> keys;
  keys.push_back(std::move(*user_key));
  for (const auto& path : vendor_key_paths(options)) add_vendor_keys(keys, path);
  return keys;
}

}  // namespace

std::vector<PrivateKey> load_host_keys(const KeyOptions& options) {
  auth::Status status;
  auto keys = collect_host_keys(options, status);
  throw_if_error(status.code, status.detail);
  return keys;
}

std::vector<PrivateKey> load_host_keys(const KeyOptions& options, std::error_code& error) {
  auth::Status status;
  auto keys = collect_host_keys(options, status);
  // The sentence goes with the code (last_error_detail), as from every other call.
  detail::Failure failure;
  if (status.code) failure.set(status.code, status.detail);
  detail::report(std::move(failure), error);
  return keys;
}

std::filesystem::path default_key_path(const KeyOptions& options) {
  const std::filesystem::path dir = android_dir(options);
  return dir.empty() ? dir : dir / "adbkey";
}

std::string default_key_comment() {
  std::string user = env_or_empty("LOGNAME");
  if (user.empty()) {
    char login[256] = {};
    if (::getlogin_r(login, sizeof login) == 0) user = login;
  }
  if (user.empty()) user = passwd_entry(false);
  if (user.empty()) user = "unknown";

  std::string host = env_or_empty("HOSTNAME");
  if (host.empty()) {
    char name[256] = {};
    // gethostname() need not terminate a truncated name; the last byte stays NUL.
    if (::gethostname(name, sizeof name - 1) == 0) host = name;
  }
  if (host.empty()) host = "unknown";
  return user + "@" + host;
}

}  // namespace adbwire
