#include "verbs/app_names.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "base/number.hpp"
#include "base/private_files.hpp"
#include "base/shell_quote.hpp"
#include "services/apk_label.hpp"
#include "services/apk_ranges.hpp"
#include "services/package_list.hpp"

namespace adbwire::verbs {
namespace fs = std::filesystem;

namespace {

// Candidates a too-vague name lists, and the bytes of device text each quotes.
constexpr std::size_t kMaxListed = 8;
constexpr std::size_t kMaxQuoted = 80;

bool package_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
}

bool package_name(std::string_view name) {
  return !name.empty() && name.size() <= 255 && std::all_of(name.begin(), name.end(), package_char);
}

ShellResult run(Device& device, const std::string& command, Deadline deadline) {
  return device.shell(command, deadline);
}

// The first `package:` line of `pm path` (the base APK; splits follow it).
std::string base_apk(Device& device, const std::string& package, Deadline deadline) {
  const ShellResult result = run(device, "pm path " + detail::shell_quote(package), deadline);
  std::string_view out = result.out;
  const std::size_t at = out.find("package:");
  if (at == std::string_view::npos) return {};
  out.remove_prefix(at + 8);
  const std::string_view path = out.substr(0, out.find_first_of("\r\n"));
  if (path.empty() || path.front() != '/' || !protocol::is_printable(path)) return {};
  return std::string(path);
}

// versionCode=N from `dumpsys package PACKAGE`; nullopt when it names none.
std::optional<std::uint64_t> version_code(Device& device, const std::string& package,
                                          Deadline deadline) {
  const ShellResult result =
      run(device, "dumpsys package " + detail::shell_quote(package), deadline);
  const std::size_t at = result.out.find("versionCode=");
  if (at == std::string::npos) return std::nullopt;
  std::size_t end = at + 12;
  while (end < result.out.size() && std::isdigit(static_cast<unsigned char>(result.out[end])))
    ++end;
  return detail::parse_number<std::uint64_t>(
      std::string_view(result.out).substr(at + 12, end - at - 12));
}

// The apps the user installed and their versionCodes, from one call where pm knows
// --show-versioncode; an older pm refuses it and lists nothing, so the plain list follows.
std::vector<std::pair<std::string, std::optional<std::uint64_t>>> installed_apps(
    Device& device, Deadline deadline) {
  auto apps = detail::parse_package_versions(
      run(device, "pm list packages -3 --show-versioncode", deadline).out);
  if (!apps.empty()) return apps;
  for (std::string& name :
       detail::parse_package_list(run(device, "pm list packages -3", deadline).out))
    apps.emplace_back(std::move(name), std::nullopt);
  return apps;
}

std::optional<std::string> cached(int folder, const std::string& name) {
  const int fd = ::openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string label(detail::kMaxLabelBytes + 1, '\0');
  const ssize_t got = ::read(fd, label.data(), label.size());
  ::close(fd);
  if (got < 0 || static_cast<std::size_t>(got) > detail::kMaxLabelBytes) return std::nullopt;
  label.resize(static_cast<std::size_t>(got));
  return label;
}

// Removes the pulled APK however the read ends.
struct RemoveOnExit {
  fs::path path;
  ~RemoveOnExit() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
};

// The whole-pull fallback, for a device that reads no ranges: the APK pulled to a private
// temporary file (removed however the read ends) and read there.
std::string pulled_label(SyncClient& sync, const std::string& apk, std::uint64_t size,
                         const fs::path& folder, const std::string& package, Deadline deadline,
                         detail::Failure& failure) {
  if (size > kMaxApkBytes) {
    failure.set(errc::limit_exceeded, "its APK holds " + std::to_string(size) +
                                          " bytes, past the " + std::to_string(kMaxApkBytes) +
                                          " pulled for a label");
    return {};
  }
  const RemoveOnExit pulled{folder /
                            ("pull-" + std::to_string(::getpid()) + "-" + package + ".apk")};
  PullOptions options;
  options.keep_attributes = false;
  options.private_files = true;
  options.deadline = deadline;
  options.limits.file_slack = 0;
  options.limits.max_file_bytes = kMaxApkBytes;  // the pull stats again: its answer may differ
  std::error_code error;
  sync.pull(apk, pulled.path, options, error);
  if (error) {
    failure.set(error, "pulling its APK failed: " + sync.last_error());
    return {};
  }
  return detail::apk_label(pulled.path, failure);
}

std::string lower_words(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// How well query matches one name: 3 equal, 2 every query word begins a word of the name,
// 1 within a typing error per four letters; 0 none. distance: for naming the nearest.
int score(const std::string& query, const std::string& name, std::size_t& distance) {
  if (name.empty()) return 0;
  distance = std::min(distance, edit_distance(query, name));
  if (query == name) return 3;
  const std::vector<std::string> name_words = words(name);
  const std::vector<std::string> query_words = words(query);
  const bool all = std::all_of(query_words.begin(), query_words.end(), [&](const std::string& q) {
    return std::any_of(name_words.begin(), name_words.end(),
                       [&](const std::string& w) { return w.starts_with(q); });
  });
  if (all) return 2;
  const std::size_t allowed = std::max<std::size_t>(1, query.size() / 4);
  if (edit_distance(query, name) <= allowed) return 1;
  return std::any_of(name_words.begin(), name_words.end(),
                     [&](const std::string& w) {
                       return w.size() > 3 && query.size() > 3 &&
                              edit_distance(query, w) <= allowed;
                     })
             ? 1
             : 0;
}

std::string describe(const std::string& package, const std::string& label) {
  return label.empty() ? package
                       : "\"" + protocol::printable(label, kMaxQuoted) + "\" (" + package + ")";
}

}  // namespace

std::map<std::string, std::string> apk_labels(Device& device, Deadline deadline,
                                              std::vector<std::string>& notes) {
  detail::Failure failure;
  const fs::path folder_path = detail::private_runtime_folder(failure) / "app-labels";
  detail::FolderFd folder;
  if (!failure)
    folder = detail::open_private_folder(folder_path, detail::FolderTrust::own, failure);
  if (failure) throw Error(failure.code, "cannot keep app labels: " + failure.detail);
  std::map<std::string, std::string> labels;
  std::optional<SyncClient> sync;
  // Until the device's dd answers a range with nothing, labels are read by ranges.
  bool ranges_work = true;
  for (const auto& [package, listed_version] : installed_apps(device, deadline)) {
    if (!package_name(package)) continue;
    const std::optional<std::uint64_t> version =
        listed_version ? listed_version : version_code(device, package, deadline);
    const std::string cache_name =
        package + "-" + (version ? std::to_string(*version) : std::string("unknown"));
    if (version) {
      if (std::optional<std::string> label = cached(folder.get(), cache_name)) {
        labels.emplace(package, std::move(*label));
        continue;
      }
    }
    const std::string apk = base_apk(device, package, deadline);
    if (apk.empty()) {
      notes.push_back(package + ": `pm path` named no APK");
      continue;
    }
    if (!sync) sync.emplace(device, deadline);
    std::error_code error;
    const RemoteStat stat = sync->stat(apk, deadline, error);
    if (error || !stat.is_regular()) {
      notes.push_back(package + ": its APK cannot be read over sync");
      continue;
    }
    detail::Failure read;
    std::string label;
    if (ranges_work) {
      detail::DeviceFileRanges ranges(device, apk, stat.size, detail::kMaxApkRangeBytes, deadline);
      label = detail::apk_label(
          stat.size,
          [&ranges](std::uint64_t offset, std::span<std::uint8_t> into, detail::Failure& f) {
            return ranges.read(offset, into, f);
          },
          read);
      if (ranges.refused()) {
        ranges_work = false;
        read = {};
      }
    }
    if (!ranges_work) {
      label = pulled_label(*sync, apk, stat.size, folder_path, package, deadline, read);
      if (!read)
        notes.push_back(package +
                        ": the device reads no ranges of a file (dd), so its whole APK (" +
                        std::to_string(stat.size) + " bytes) was pulled");
    }
    if (read) {
      notes.push_back(package + ": " + read.detail);
      continue;
    }
    if (version) {
      detail::Failure ignored;  // a cache that cannot be written costs only a later pull
      detail::write_private_file(folder.get(), cache_name, label, ignored);
    }
    labels.emplace(package, std::move(label));
  }
  return labels;
}

std::string match_app(std::string_view query, const std::map<std::string, std::string>& apps) {
  const std::string wanted = lower_words(query);
  if (wanted.empty()) throw Error(errc::invalid_argument, "give an app's name or package");
  int best = 0;
  std::vector<std::string> found;
  std::string nearest;
  std::size_t nearest_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& [package, label] : apps) {
    std::size_t distance = std::numeric_limits<std::size_t>::max();
    const int s = std::max({score(wanted, lower_words(label), distance),
                            score(wanted, lower_words(package), distance)});
    if (distance < nearest_distance) {
      nearest_distance = distance;
      nearest = package;
    }
    if (s == 0 || s < best) continue;
    if (s > best) found.clear();
    best = s;
    found.push_back(package);
  }
  const std::string shown = protocol::printable(query, kMaxQuoted);
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    throw Error(
        errc::not_found,
        "no installed app is called \"" + shown + "\"" +
            (nearest.empty() ? "" : "; the nearest is " + describe(nearest, apps.at(nearest))) +
            " (the apps verb lists them)");
  }
  std::string listed;
  for (std::size_t i = 0; i < found.size() && i < kMaxListed; ++i)
    listed += (i == 0 ? "" : ", ") + describe(found[i], apps.at(found[i]));
  if (found.size() > kMaxListed)
    listed += " and " + std::to_string(found.size() - kMaxListed) + " more";
  throw Error(errc::invalid_argument, "\"" + shown + "\" matches " + std::to_string(found.size()) +
                                          " apps: " + listed +
                                          "; give the package or more of the name");
}

}  // namespace adbwire::verbs
