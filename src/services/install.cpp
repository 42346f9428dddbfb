// install/uninstall: streamed installs (exec:cmd package … or abb_exec:package\0…), split
// sessions, and the push + `pm install` fallback for devices without `cmd`.
#include "adbwire/install.hpp"

#include <algorithm>
#include <fstream>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "base/failure.hpp"
#include "base/shell_quote.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::string_view kTempFolder = "/data/local/tmp/";

// Deadlines as sync has them: an explicit one for the whole call, or a fresh
// command_timeout for every wait.
class Waits {
 public:
  Waits(const Device& device, Deadline deadline)
      : fixed_(deadline), step_(device.command_timeout()) {}
  Deadline next() const { return fixed_ == kDefaultDeadline ? deadline_after(step_) : fixed_; }
  // What the caller passed, for calls (sync push) that apply the same rule themselves.
  Deadline as_given() const { return fixed_; }

 private:
  Deadline fixed_;
  std::chrono::milliseconds step_;
};

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '=' || c == ':' || c == '/' || c == '-';
}

bool safe_word(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), safe_char);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  return text;
}

// A file name the shell and pm take as is: unsafe characters become '_'.
std::string safe_name(const fs::path& path) {
  std::string name = path.filename().string();
  for (char& c : name) {
    if (!safe_char(c) || c == '/' || c == ':' || c == '=') c = '_';
  }
  if (name.empty() || name.front() == '-') name.insert(name.begin(), '_');
  return name;
}

struct Apk {
  fs::path path;
  std::uint64_t size = 0;
};

std::vector<Apk> check_apks(const std::vector<fs::path>& paths, detail::Failure& failure) {
  if (paths.empty()) {
    failure.set(errc::invalid_argument, "install needs at least one APK");
    return {};
  }
  std::vector<Apk> apks;
  for (const fs::path& path : paths) {
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (error || !fs::is_regular_file(path, error)) {
      failure.set(errc::not_found,
                  "cannot read the APK '" + path.string() +
                      "': " + (error ? error.message() : std::string("not a regular file")));
      return {};
    }
    apks.push_back({path, size});
  }
  return apks;
}

std::vector<std::string> pm_flags(const InstallOptions& options, detail::Failure& failure) {
  std::vector<std::string> flags;
  if (options.replace) flags.emplace_back("-r");
  if (options.downgrade) flags.emplace_back("-d");
  if (options.grant_permissions) flags.emplace_back("-g");
  if (options.allow_test) flags.emplace_back("-t");
  for (const std::string& arg : options.extra_args) {
    if (!safe_word(arg)) {
      failure.set(
          errc::invalid_argument,
          "install option '" + arg + "' has characters other than letters, digits and ._=:/-");
      return {};
    }
    flags.push_back(arg);
  }
  return flags;
}

// Talks to the package manager: exec:cmd package … or abb_exec:package\0… .
class PackageManager {
 public:
  PackageManager(Device& device, const Waits& waits)
      : device_(device), waits_(waits), abb_(device.banner().has_feature("abb_exec")) {}

  Stream open(const std::vector<std::string>& args, detail::Failure& failure) {
    std::string service;
    if (abb_) {
      service = "abb_exec:package";
      for (const std::string& arg : args) service += '\0' + arg;
    } else {
      service = "exec:cmd package";
      for (const std::string& arg : args) service += ' ' + arg;
    }
    std::error_code error;
    Stream stream = device_.open(service, waits_.next(), error);
    if (error) failure = detail::reported(error);
    return stream;
  }

  // Runs a command without input and returns its answer.
  std::string run(const std::vector<std::string>& args, detail::Failure& failure) {
    Stream stream = open(args, failure);
    if (failure) return {};
    return read_answer(stream, waits_, failure);
  }

  static std::string read_answer(Stream& stream, const Waits& waits, detail::Failure& failure) {
    std::error_code error;
    std::string answer = stream.read_all(waits.next(), error);
    if (error) failure = detail::reported(error);
    return answer;
  }

 private:
  Device& device_;
  const Waits& waits_;
  bool abb_;
};

// Copies the APK into the stream chunk by chunk. progress may throw (the caller's way to
// abandon the install); that exception passes through.
void send_file(Stream& stream, const Apk& apk, const Waits& waits, std::uint64_t& sent,
               std::uint64_t total, const InstallProgressHandler& progress,
               detail::Failure& failure) {
  std::ifstream file(apk.path, std::ios::binary);
  if (!file) {
    failure.set(errc::not_found, "cannot open the APK '" + apk.path.string() + "'");
    return;
  }
  std::vector<char> buffer(kChunk);
  std::uint64_t left = apk.size;
  while (left > 0) {
    const auto want = static_cast<std::streamsize>(std::min<std::uint64_t>(left, buffer.size()));
    file.read(buffer.data(), want);
    if (file.gcount() != want) {
      failure.set(errc::io_error,
                  "the APK '" + apk.path.string() + "' became shorter while it was being sent");
      return;
    }
    std::error_code error;
    stream.write(
        {reinterpret_cast<const std::uint8_t*>(buffer.data()), static_cast<std::size_t>(want)},
        waits.next(), error);
    if (error) {
      failure = detail::reported(error);
      return;
    }
    left -= static_cast<std::uint64_t>(want);
    sent += static_cast<std::uint64_t>(want);
    if (progress) progress(sent, total);
  }
}

// `failed` says what failed ("failed to install x.apk"); the package manager's text follows.
void require_success(const std::string& answer, const std::string& failed,
                     detail::Failure& failure) {
  if (answer.starts_with("Success")) return;
  const std::string text = trimmed(answer);
  failure.set(
      errc::command_failed,
      failed + ": " + (text.empty() ? std::string("the package manager gave no answer") : text));
}

// One APK streamed into `cmd package install -S SIZE`.
std::string install_one_streamed(PackageManager& pm, const Apk& apk,
                                 const std::vector<std::string>& flags,
                                 const InstallProgressHandler& progress, const Waits& waits,
                                 detail::Failure& failure) {
  std::uint64_t sent = 0;
  std::vector<std::string> args{"install", "-S", std::to_string(apk.size)};
  args.insert(args.end(), flags.begin(), flags.end());
  Stream stream = pm.open(args, failure);
  if (failure) return {};
  send_file(stream, apk, waits, sent, apk.size, progress, failure);
  if (failure) return {};
  std::string answer = PackageManager::read_answer(stream, waits, failure);
  if (!failure) require_success(answer, "failed to install " + apk.path.string(), failure);
  return answer;
}

// The session id in install-create's answer ("Success: created install session [1234]").
std::string session_of(const std::string& created, detail::Failure& failure) {
  const std::size_t open = created.find('[');
  const std::size_t end = created.find(']', open == std::string::npos ? 0 : open);
  if (!created.starts_with("Success") || open == std::string::npos || end == std::string::npos) {
    require_success(created.starts_with("Success") ? std::string() : created,
                    "creating an install session failed", failure);
    if (!failure) {
      failure.set(errc::parse_error,
                  "install-create answered '" + trimmed(created) + "', with no [SESSION] id");
    }
    return {};
  }
  std::string session = created.substr(open + 1, end - open - 1);
  if (!safe_word(session)) {
    failure.set(errc::parse_error,
                "install-create answered a session id that is not a number: " + session);
    return {};
  }
  return session;
}

// Splits written into one session and committed; the session is abandoned when any step fails.
std::string install_session(Device& device, PackageManager& pm, const std::vector<Apk>& apks,
                            const std::vector<std::string>& flags,
                            const InstallProgressHandler& progress, const Waits& waits,
                            detail::Failure& failure) {
  std::uint64_t total = 0;
  for (const Apk& apk : apks) total += apk.size;
  std::vector<std::string> create{"install-create", "-S", std::to_string(total)};
  create.insert(create.end(), flags.begin(), flags.end());
  const std::string created = pm.run(create, failure);
  if (failure) return {};
  const std::string session = session_of(created, failure);
  if (failure) return {};
  const auto abandon = [&] {
    std::error_code ignored;
    Stream stream =
        device.open("exec:cmd package install-abandon " + session, waits.next(), ignored);
    if (!ignored) stream.read_all(waits.next(), ignored);
  };
  std::string answer;
  try {
    std::uint64_t sent = 0;
    for (std::size_t i = 0; i < apks.size() && !failure; ++i) {
      Stream stream = pm.open({"install-write", "-S", std::to_string(apks[i].size), session,
                               std::to_string(i) + "_" + safe_name(apks[i].path), "-"},
                              failure);
      if (!failure) send_file(stream, apks[i], waits, sent, total, progress, failure);
      if (failure) break;
      const std::string written = PackageManager::read_answer(stream, waits, failure);
      if (!failure)
        require_success(written,
                        "writing " + apks[i].path.string() + " into session " + session + " failed",
                        failure);
    }
    if (!failure) answer = pm.run({"install-commit", session}, failure);
    if (!failure)
      require_success(answer,
                      "installing " + std::to_string(apks.size()) + " split APKs (session " +
                          session + ") failed",
                      failure);
  } catch (...) {
    // The progress handler abandoned the install by throwing.
    abandon();
    throw;
  }
  if (failure) abandon();
  return answer;
}

std::string install_pushed(Device& device, const Apk& apk, const std::vector<std::string>& flags,
                           const InstallProgressHandler& progress, const Waits& waits,
                           detail::Failure& failure) {
  const std::string remote = std::string(kTempFolder) + safe_name(apk.path);
  PushOptions push;
  if (progress)
    push.progress = [&](const SyncProgress& p) { progress(p.total_bytes, p.total_size); };
  push.deadline = waits.as_given();
  std::error_code error;
  SyncClient sync(device, push.deadline, error);
  if (!error) sync.push(apk.path, remote, push, error);
  if (error) {
    failure.set(error, sync.last_error());
    return {};
  }
  std::string command = "pm install";
  for (const std::string& flag : flags) command += " " + flag;
  command += " " + detail::shell_quote(remote);
  const ShellResult result = device.shell(command, waits.next(), error);
  std::error_code ignored;
  device.shell("rm -f " + detail::shell_quote(remote), waits.next(), ignored);
  if (error) {
    failure.set(error, "running '" + command + "' on " + device.serial());
    return {};
  }
  // pm prints Success on stdout; old pm also prints "pkg: PATH" before it.
  if (result.out.find("Success") == std::string::npos) {
    const std::string text = trimmed(result.out + result.err);
    failure.set(errc::command_failed, "failed to install " + apk.path.string() + ": " +
                                          (text.empty() ? std::string("pm gave no answer") : text));
    return {};
  }
  return result.out;
}

std::string run_install(Device& device, const std::vector<fs::path>& paths,
                        const InstallOptions& options, const InstallProgressHandler& progress,
                        Deadline deadline, detail::Failure& failure) {
  const std::vector<Apk> apks = check_apks(paths, failure);
  if (failure) return {};
  const std::vector<std::string> flags = pm_flags(options, failure);
  if (failure) return {};
  const Waits waits(device, deadline);
  const bool has_cmd = device.banner().has_feature("cmd");
  InstallMethod method = options.method;
  if (method == InstallMethod::automatic)
    method = has_cmd ? InstallMethod::streamed : InstallMethod::push;
  if (method == InstallMethod::push) {
    if (apks.size() != 1) {
      failure.set(errc::invalid_argument,
                  "installing split APKs needs `cmd` on the device; push installs one APK");
      return {};
    }
    return install_pushed(device, apks[0], flags, progress, waits, failure);
  }
  if (!has_cmd) {
    failure.set(
        errc::not_supported,
        device.serial() + " has no `cmd` (Android before 7.0): install with InstallMethod::push");
    return {};
  }
  PackageManager pm(device, waits);
  if (apks.size() > 1) return install_session(device, pm, apks, flags, progress, waits, failure);
  std::string answer = install_one_streamed(pm, apks[0], flags, progress, waits, failure);
  // A device that refuses exec: (older than its `cmd`, or a trimmed adbd) still has pm.
  if (failure.code == errc::not_supported && options.method == InstallMethod::automatic) {
    failure = {};
    return install_pushed(device, apks[0], flags, progress, waits, failure);
  }
  return answer;
}

bool valid_package(std::string_view package) {
  return !package.empty() && std::all_of(package.begin(), package.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_';
  });
}

std::string run_uninstall(Device& device, std::string_view package, bool keep_data,
                          Deadline deadline, detail::Failure& failure) {
  if (!valid_package(package)) {
    failure.set(errc::invalid_argument, "'" + std::string(package) + "' is not a package name");
    return {};
  }
  const std::string command =
      std::string("pm uninstall ") + (keep_data ? "-k " : "") + detail::shell_quote(package);
  std::error_code error;
  const ShellResult result = device.shell(command, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  if (!result.out.starts_with("Success")) {
    const std::string text = trimmed(result.out + result.err);
    failure.set(errc::command_failed, "uninstalling " + std::string(package) + " failed: " +
                                          (text.empty() ? std::string("pm gave no answer") : text));
    return {};
  }
  return result.out;
}

}  // namespace

std::string install(Device& device, const std::vector<fs::path>& apks,
                    const InstallOptions& options, const InstallProgressHandler& progress,
                    Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) {
    return run_install(device, apks, options, progress, deadline, f);
  });
}

std::string install(Device& device, const std::vector<fs::path>& apks,
                    const InstallOptions& options, const InstallProgressHandler& progress,
                    Deadline deadline, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) {
    return run_install(device, apks, options, progress, deadline, f);
  });
}

std::string uninstall(Device& device, std::string_view package, bool keep_data, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return run_uninstall(device, package, keep_data, deadline, f); });
}

std::string uninstall(Device& device, std::string_view package, bool keep_data, Deadline deadline,
                      std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) {
    return run_uninstall(device, package, keep_data, deadline, f);
  });
}

}  // namespace adbwire
