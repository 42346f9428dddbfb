#include "cli/forward_registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "adbwire/error.hpp"
#include "base/private_files.hpp"
#include "cli/runtime_folder.hpp"

namespace adbwire::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::string_view kPrefix = "forward-";

// The fields of /proc/PID/stat after the command name (field 3 first), or none when the
// process is gone. Field 2, the name in parentheses, may itself hold spaces and ')'.
std::vector<std::string> stat_fields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::vector<std::string> fields;
  if (!std::getline(in, line)) return fields;
  const std::size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return fields;
  std::istringstream rest(line.substr(name_end + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// Field 22, the start time in clock ticks after boot: with the PID it names one process for
// good, since a reused PID belongs to a process started later.
std::string start_time(pid_t pid) {
  const std::vector<std::string> fields = stat_fields(pid);
  return fields.size() > 19 ? fields[19] : std::string();
}

// True while the process that registered is alive (not gone, not a zombie, PID not reused).
bool is_running(pid_t pid, const std::string& started) {
  const std::vector<std::string> fields = stat_fields(pid);
  return fields.size() > 19 && fields[0] != "Z" && fields[19] == started;
}

struct Entry {
  fs::path path;
  RegisteredForward rule;
  std::string started;
};

// The registration in `path`, or nothing when the file is not one (or is half gone).
bool read_entry(const fs::path& path, Entry& entry) {
  std::ifstream in(path);
  std::string pid;
  if (!std::getline(in, pid) || !std::getline(in, entry.started) ||
      !std::getline(in, entry.rule.serial) || !std::getline(in, entry.rule.local) ||
      !std::getline(in, entry.rule.remote)) {
    return false;
  }
  try {
    entry.rule.pid = static_cast<pid_t>(std::stol(pid));
  } catch (const std::exception&) {
    return false;
  }
  entry.path = path;
  return entry.rule.pid > 0;
}

// Registrations of live processes; files of dead (or reused) PIDs are deleted.
std::vector<Entry> live_entries() {
  std::vector<Entry> entries;
  std::error_code error;
  for (const fs::directory_entry& file : fs::directory_iterator(private_runtime_folder(), error)) {
    const std::string name = file.path().filename().string();
    if (!name.starts_with(kPrefix) || name.ends_with(".tmp")) continue;
    Entry entry;
    if (!read_entry(file.path(), entry)) continue;
    if (!is_running(entry.rule.pid, entry.started)) {
      std::error_code ignored;
      fs::remove(file.path(), ignored);
      continue;
    }
    entries.push_back(std::move(entry));
  }
  // Start times are decimal numbers of clock ticks: the shorter string is the smaller one.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::pair(a.started.size(), a.started) < std::pair(b.started.size(), b.started);
  });
  return entries;
}

}  // namespace

ForwardRegistration::ForwardRegistration(std::string_view serial, std::string_view local,
                                         std::string_view remote) {
  const pid_t pid = ::getpid();
  const fs::path folder = private_runtime_folder();
  path_ = folder / (std::string(kPrefix) + std::to_string(pid));
  std::ostringstream rule;
  rule << pid << '\n'
       << start_time(pid) << '\n'
       << serial << '\n'
       << local << '\n'
       << remote << '\n';
  detail::Failure failure;
  const detail::FolderFd fd =
      detail::open_private_folder(folder, detail::FolderTrust::own, failure);
  if (fd) detail::write_private_file(fd.get(), path_.filename().string(), rule.str(), failure);
  failure.throw_if_failed();
}

ForwardRegistration::~ForwardRegistration() {
  std::error_code ignored;
  fs::remove(path_, ignored);
}

std::vector<RegisteredForward> registered_forwards() {
  std::vector<RegisteredForward> rules;
  for (Entry& entry : live_entries()) rules.push_back(std::move(entry.rule));
  return rules;
}

std::size_t remove_registered_forwards(std::string_view local, std::chrono::milliseconds wait) {
  std::vector<Entry> targets = live_entries();
  std::erase_if(targets,
                [&](const Entry& entry) { return !local.empty() && entry.rule.local != local; });
  for (const Entry& entry : targets) ::kill(entry.rule.pid, SIGTERM);
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (const Entry& entry : targets) {
    // Done when the process removed its file, or died without doing so.
    while (fs::exists(entry.path) && is_running(entry.rule.pid, entry.started)) {
      if (std::chrono::steady_clock::now() > give_up) {
        throw Error(errc::timeout, "process " + std::to_string(entry.rule.pid) + " holding " +
                                       entry.rule.local +
                                       " did not end after SIGTERM; end it with kill -9 " +
                                       std::to_string(entry.rule.pid));
      }
      std::this_thread::sleep_for(10ms);
    }
    std::error_code ignored;
    fs::remove(entry.path, ignored);
  }
  return targets.size();
}

}  // namespace adbwire::cli
