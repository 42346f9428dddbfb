// install/uninstall: streamed installs (exec:cmd package … or abb_exec:package\0…), split
// sessions, and the push + `pm install` fallback for devices without `cmd`.
#include "adbwire/install.hpp"

#include <algorithm>
#include <fstream>

#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "connection/device_access.hpp"

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
      : fixed_(deadline), step_(detail::DeviceAccess::command_timeout(device)) {}
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

std::vector<Apk> check_apks(const std::vector<fs::path>& paths) {
  if (paths.empty()) throw Error(errc::invalid_argument, "install needs at least one APK");
  std::vector<Apk> apks;
  for (const fs::path& path : paths) {
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (error || !fs::is_regular_file(path, error)) {
      throw Error(errc::not_found,
                  "cannot read the APK '" + path.string() +
                      "': " + (error ? error.message() : std::string("not a regular file")));
    }
    apks.push_back({path, size});
  }
  return apks;
}

std::vector<std::string> pm_flags(const InstallOptions& options) {
  std::vector<std::string> flags;
  if (options.replace) flags.emplace_back("-r");
  if (options.downgrade) flags.emplace_back("-d");
  if (options.grant_permissions) flags.emplace_back("-g");
  if (options.allow_test) flags.emplace_back("-t");
  for (const std::string& arg : options.extra_args) {
    if (!safe_word(arg)) {
      throw Error(
          errc::invalid_argument,
          "install option '" + arg + "' has characters other than letters, digits and ._=:/-");
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

  Stream open(const std::vector<std::string>& args) {
    std::string service;
    if (abb_) {
      service = "abb_exec:package";
      for (const std::string& arg : args) service += '\0' + arg;
    } else {
      service = "exec:cmd package";
      for (const std::string& arg : args) service += ' ' + arg;
    }
    return device_.open(service, waits_.next());
  }

  // Runs a command without input and returns its answer.
  std::string run(const std::vector<std::string>& args) {
    Stream stream = open(args);
    return stream.read_all(waits_.next());
  }

 private:
  Device& device_;
  const Waits& waits_;
  bool abb_;
};

// Copies the APK into the stream chunk by chunk.
void send_file(Stream& stream, const Apk& apk, const Waits& waits, std::uint64_t& sent,
               std::uint64_t total, const InstallProgressHandler& progress) {
  std::ifstream file(apk.path, std::ios::binary);
  if (!file) throw Error(errc::not_found, "cannot open the APK '" + apk.path.string() + "'");
  std::vector<char> buffer(kChunk);
  std::uint64_t left = apk.size;
  while (left > 0) {
    const auto want = static_cast<std::streamsize>(std::min<std::uint64_t>(left, buffer.size()));
    file.read(buffer.data(), want);
    if (file.gcount() != want) {
      throw Error(errc::io_error,
                  "the APK '" + apk.path.string() + "' became shorter while it was being sent");
    }
    stream.write(
        {reinterpret_cast<const std::uint8_t*>(buffer.data()), static_cast<std::size_t>(want)},
        waits.next());
    left -= static_cast<std::uint64_t>(want);
    sent += static_cast<std::uint64_t>(want);
    if (progress) progress(sent, total);
  }
}

void require_success(const std::string& answer, const std::string& what) {
  if (answer.starts_with("Success")) return;
  const std::string text = trimmed(answer);
  throw Error(errc::command_failed,
              what + " failed: " +
                  (text.empty() ? std::string("the package manager gave no answer") : text));
}

std::string install_streamed(Device& device, const std::vector<Apk>& apks,
                             const std::vector<std::string>& flags,
                             const InstallProgressHandler& progress, const Waits& waits) {
  PackageManager pm(device, waits);
  std::uint64_t total = 0;
  for (const Apk& apk : apks) total += apk.size;
  std::uint64_t sent = 0;
  if (apks.size() == 1) {
    std::vector<std::string> args{"install", "-S", std::to_string(apks[0].size)};
    args.insert(args.end(), flags.begin(), flags.end());
    Stream stream = pm.open(args);
    send_file(stream, apks[0], waits, sent, total, progress);
    const std::string answer = stream.read_all(waits.next());
    require_success(answer, "installing " + apks[0].path.string());
    return answer;
  }

  std::vector<std::string> create{"install-create", "-S", std::to_string(total)};
  create.insert(create.end(), flags.begin(), flags.end());
  const std::string created = pm.run(create);
  const std::size_t open = created.find('[');
  const std::size_t end = created.find(']', open == std::string::npos ? 0 : open);
  if (!created.starts_with("Success") || open == std::string::npos || end == std::string::npos) {
    require_success(created.starts_with("Success") ? std::string() : created,
                    "creating an install session");
    throw Error(errc::parse_error,
                "install-create answered '" + trimmed(created) + "', with no [SESSION] id");
  }
  const std::string session = created.substr(open + 1, end - open - 1);
  if (!safe_word(session)) {
    throw Error(errc::parse_error,
                "install-create answered a session id that is not a number: " + session);
  }
  try {
    for (std::size_t i = 0; i < apks.size(); ++i) {
      Stream stream = pm.open({"install-write", "-S", std::to_string(apks[i].size), session,
                               std::to_string(i) + "_" + safe_name(apks[i].path), "-"});
      send_file(stream, apks[i], waits, sent, total, progress);
      require_success(stream.read_all(waits.next()),
                      "writing " + apks[i].path.string() + " into session " + session);
    }
    const std::string answer = pm.run({"install-commit", session});
    require_success(answer, "installing " + std::to_string(apks.size()) + " split APKs (session " +
                                session + ")");
    return answer;
  } catch (const Error&) {
    std::error_code ignored;
    Stream abandon =
        device.open("exec:cmd package install-abandon " + session, waits.next(), ignored);
    if (!ignored) abandon.read_all(waits.next(), ignored);
    throw;
  }
}

std::string install_pushed(Device& device, const Apk& apk, const std::vector<std::string>& flags,
                           const InstallProgressHandler& progress, const Waits& waits) {
  const std::string remote = std::string(kTempFolder) + safe_name(apk.path);
  PushOptions push;
  if (progress)
    push.progress = [&](const SyncProgress& p) { progress(p.total_bytes, p.total_size); };
  push.deadline = waits.as_given();
  adbwire::push(device, apk.path, remote, push);
  std::string command = "pm install";
  for (const std::string& flag : flags) command += " " + flag;
  command += " " + remote;
  std::error_code error;
  const ShellResult result = device.shell(command, waits.next(), error);
  std::error_code ignored;
  device.shell("rm -f " + remote, waits.next(), ignored);
  throw_if_error(error, "running '" + command + "' on " + device.serial());
  // pm prints Success on stdout; old pm also prints "pkg: PATH" before it.
  const std::string answer = result.out;
  if (answer.find("Success") == std::string::npos) {
    const std::string text = trimmed(result.out + result.err);
    throw Error(errc::command_failed, "installing " + apk.path.string() + " failed: " +
                                          (text.empty() ? std::string("pm gave no answer") : text));
  }
  return answer;
}

std::string run_install(Device& device, const std::vector<fs::path>& paths,
                        const InstallOptions& options, const InstallProgressHandler& progress,
                        Deadline deadline) {
  const std::vector<Apk> apks = check_apks(paths);
  const std::vector<std::string> flags = pm_flags(options);
  const Waits waits(device, deadline);
  const bool has_cmd = device.banner().has_feature("cmd");
  InstallMethod method = options.method;
  if (method == InstallMethod::automatic)
    method = has_cmd ? InstallMethod::streamed : InstallMethod::push;
  if (method == InstallMethod::streamed) {
    if (!has_cmd) {
      throw Error(
          errc::not_supported,
          device.serial() + " has no `cmd` (Android before 7.0): install with InstallMethod::push");
    }
    if (options.method == InstallMethod::automatic && apks.size() == 1) {
      // A device that refuses exec: (older than its `cmd`, or a trimmed adbd) still has pm.
      try {
        return install_streamed(device, apks, flags, progress, waits);
      } catch (const Error& e) {
        if (e.code() != errc::not_supported) throw;
      }
      return install_pushed(device, apks[0], flags, progress, waits);
    }
    return install_streamed(device, apks, flags, progress, waits);
  }
  if (apks.size() != 1) {
    throw Error(errc::invalid_argument,
                "installing split APKs needs `cmd` on the device; push installs one APK");
  }
  return install_pushed(device, apks[0], flags, progress, waits);
}

template <typename Body>
std::string no_throw(std::error_code& error, Body body) {
  error.clear();
  try {
    return body();
  } catch (const Error& e) {
    error = e.code();
    return {};
  }
}

}  // namespace

std::string install(Device& device, const std::vector<fs::path>& apks,
                    const InstallOptions& options, const InstallProgressHandler& progress,
                    Deadline deadline) {
  return run_install(device, apks, options, progress, deadline);
}

std::string install(Device& device, const std::vector<fs::path>& apks,
                    const InstallOptions& options, const InstallProgressHandler& progress,
                    Deadline deadline, std::error_code& error) {
  return no_throw(error, [&] { return run_install(device, apks, options, progress, deadline); });
}

std::string uninstall(Device& device, std::string_view package, bool keep_data, Deadline deadline) {
  const bool valid = !package.empty() && std::all_of(package.begin(), package.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_';
  });
  if (!valid)
    throw Error(errc::invalid_argument, "'" + std::string(package) + "' is not a package name");
  const std::string command =
      std::string("pm uninstall ") + (keep_data ? "-k " : "") + std::string(package);
  const ShellResult result = device.shell(command, deadline);
  if (!result.out.starts_with("Success")) {
    const std::string text = trimmed(result.out + result.err);
    throw Error(errc::command_failed, "uninstalling " + std::string(package) + " failed: " +
                                          (text.empty() ? std::string("pm gave no answer") : text));
  }
  return result.out;
}

std::string uninstall(Device& device, std::string_view package, bool keep_data, Deadline deadline,
                      std::error_code& error) {
  return no_throw(error, [&] { return uninstall(device, package, keep_data, deadline); });
}

}  // namespace adbwire
