#include "vdevice/install_commands.hpp"

#include <algorithm>
#include <fstream>
#include <optional>

#include "base/number.hpp"
#include "vdevice/screencap_frames.hpp"

namespace adbwire::vdevice {
namespace {

using Argv = std::vector<std::string>;

// How much of an APK is searched for the manifest markers.
constexpr std::size_t kManifestWindow = 64 * 1024;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_';
}

// The value after `key` up to the first character that cannot be part of a package name.
std::string marker(std::string_view head, std::string_view key) {
  const std::size_t at = head.find(key);
  if (at == std::string_view::npos) return {};
  std::size_t end = at + key.size();
  while (end < head.size() && name_char(head[end])) ++end;
  return std::string(head.substr(at + key.size(), end - at - key.size()));
}

struct Manifest {
  std::string package;
  std::uint64_t version_code = 0;
  std::string label;  // android:label; "" for none
};

Manifest read_manifest(std::string_view head) {
  Manifest manifest;
  manifest.package = marker(head, "package=");
  manifest.version_code =
      detail::parse_number<std::uint64_t>(marker(head, "versionCode=")).value_or(0);
  manifest.label = marker(head, "label=");
  return manifest;
}

bool has_flag(const Argv& args, std::string_view flag) {
  return std::find(args.begin(), args.end(), flag) != args.end();
}

// Registers the package or says why not, in pm's words. Returns pm's exit status.
int finish_install(const Manifest& manifest, bool allow_downgrade, JobIo& io) {
  DeviceStateStore& state = io.device().state();
  if (!manifest.package.empty()) {
    const auto installed = state.package_version(manifest.package);
    if (installed && *installed > manifest.version_code && !allow_downgrade) {
      io.out("Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code " +
             std::to_string(manifest.version_code) + " is older than current " +
             std::to_string(*installed) + "]\n");
      return 1;
    }
    state.add_package(manifest.package, manifest.version_code);
    state.set_label(manifest.package, manifest.label);
  }
  io.out("Success\n");
  return 0;
}

// Reads exactly `size` bytes of stdin (an APK streamed with -S), keeping its head for the
// manifest markers; then installs it, or adds it to a session.
class StreamedApkJob final : public Job {
 public:
  // session 0: a single install with `args`' flags; else install-write into that session.
  StreamedApkJob(std::uint64_t size, Argv args, std::uint32_t session, std::string name)
      : size_(size),
        remaining_(size),
        args_(std::move(args)),
        session_(session),
        name_(std::move(name)) {}

  JobStep step(JobIo& io) override {
    std::uint8_t buffer[64 * 1024];
    while (remaining_ > 0) {
      const auto want =
          static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, sizeof buffer));
      const std::size_t got = io.read_stdin(std::span<std::uint8_t>(buffer, want));
      if (got == 0) {
        if (!io.stdin_eof()) return JobStep::wait_input();
        io.out("Failure [INSTALL_FAILED_INVALID_APK: stream ended early]\n");
        return JobStep::done(1);
      }
      if (head_.size() < kManifestWindow) {
        head_.append(reinterpret_cast<const char*>(buffer),
                     std::min(got, kManifestWindow - head_.size()));
      }
      remaining_ -= got;
    }
    const Manifest manifest = read_manifest(head_);
    if (session_ == 0) return JobStep::done(finish_install(manifest, has_flag(args_, "-d"), io));
    if (!io.device().state().write_session(session_, name_, size_, manifest.package,
                                           manifest.version_code)) {
      io.out("Failure [INSTALL_FAILED_INTERNAL_ERROR: unknown session " + std::to_string(session_) +
             "]\n");
      return JobStep::done(1);
    }
    io.out("Success: streamed " + std::to_string(size_) + " bytes\n");
    return JobStep::done(0);
  }

 private:
  std::uint64_t size_;
  std::uint64_t remaining_;
  Argv args_;
  std::uint32_t session_;
  std::string name_;
  std::string head_;
};

// The value after an option such as -S, or nullopt.
std::optional<std::uint64_t> option_number(const Argv& args, std::string_view option) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == option) return detail::parse_number<std::uint64_t>(args[i + 1]);
  }
  return std::nullopt;
}

int install_file(const Argv& args, JobIo& io) {
  // `pm install [flags] PATH`: the last argument is the APK on the device.
  std::error_code error;
  const auto host = io.device().resolve(args.back(), error);
  std::ifstream file;
  if (!error) file.open(host, std::ios::binary);
  if (error || !file) {
    io.out("Failure [INSTALL_FAILED_INVALID_URI]\n");
    io.err("Error: Can't open file: " + args.back() + "\n");
    return 1;
  }
  std::string head(kManifestWindow, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(file.gcount()));
  return finish_install(read_manifest(head), has_flag(args, "-d"), io);
}

template <typename Run>
std::unique_ptr<Job> now(Run run) {
  class Now final : public Job {
   public:
    explicit Now(Run r) : run_(std::move(r)) {}
    JobStep step(JobIo& io) override { return JobStep::done(run_(io)); }

   private:
    Run run_;
  };
  return std::make_unique<Now>(std::move(run));
}

std::optional<std::uint32_t> session_id(const Argv& args, std::size_t index) {
  if (index >= args.size()) return std::nullopt;
  const auto id = detail::parse_number<std::uint64_t>(args[index]);
  if (!id || *id > UINT32_MAX) return std::nullopt;
  return static_cast<std::uint32_t>(*id);
}

// `pm path PACKAGE`: "package:" and the base APK of an installed app (where an APK was
// installed with the device, VirtualDeviceOptions::apps); pm's exit status 1 and nothing on
// stdout for a package it does not know.
int package_path(const Argv& args, JobIo& io) {
  if (args.size() < 2) {
    io.err("Error: no package specified\n");
    return 1;
  }
  const std::string& package = args.back();
  if (package != kDemoPackage && !io.device().state().package_version(package)) return 1;
  io.out("package:" + base_apk_path(package) + "\n");
  return 0;
}

}  // namespace

std::string base_apk_path(std::string_view package) {
  return "/data/app/" + std::string(package) + "-1/base.apk";
}

int package_dumpsys(const Argv& argv, JobIo& io) {
  const std::string package = argv.size() >= 3 ? argv.back() : std::string();
  const auto version = io.device().state().package_version(package);
  if (!version && package != kDemoPackage) {
    io.out("Unable to find package: " + package + "\n");
    return 0;
  }
  io.out("Packages:\n  Package [" + package +
         "] (5d3a1e2):\n    userId=10123\n"
         "    codePath=/data/app/" +
         package + "-1\n    versionCode=" + std::to_string(version.value_or(1)) +
         " minSdk=21 targetSdk=34\n    versionName=1.0\n");
  return 0;
}

std::unique_ptr<Job> package_job(const Argv& args) {
  if (args.empty()) return nullptr;
  const std::string& verb = args[0];
  if (verb == "install") {
    if (const auto size = option_number(args, "-S"))
      return std::make_unique<StreamedApkJob>(*size, args, 0, "");
    if (args.size() >= 2 && !args.back().starts_with('-'))
      return now([args](JobIo& io) { return install_file(args, io); });
    return error_job("Error: APK content must be streamed\n", 1);
  }
  if (verb == "install-create") {
    const bool downgrade = has_flag(args, "-d");
    return now([downgrade](JobIo& io) {
      io.out("Success: created install session [" +
             std::to_string(io.device().state().create_session(downgrade)) + "]\n");
      return 0;
    });
  }
  if (verb == "install-write") {
    // install-write -S SIZE SESSION NAME -
    const auto size = option_number(args, "-S");
    std::vector<std::string> rest;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "-S") {
        ++i;
        continue;
      }
      rest.push_back(args[i]);
    }
    const auto id = session_id(rest, 0);
    if (!size || !id || rest.size() < 2) {
      return error_job("Error: usage: install-write -S SIZE SESSION NAME -\n", 1);
    }
    return std::make_unique<StreamedApkJob>(*size, args, *id, rest[1]);
  }
  if (verb == "install-commit" || verb == "install-abandon") {
    const auto id = session_id(args, 1);
    const bool commit = verb == "install-commit";
    return now([id, commit](JobIo& io) {
      auto session = id ? io.device().state().take_session(*id) : std::nullopt;
      if (!session) {
        io.out("Failure [INSTALL_FAILED_INTERNAL_ERROR: no session " +
               (id ? std::to_string(*id) : "") + "]\n");
        return 1;
      }
      if (!commit) {
        io.out("Success\n");
        return 0;
      }
      return finish_install({session->package, session->version_code, {}}, session->allow_downgrade,
                            io);
    });
  }
  if (verb == "uninstall") {
    return now([args](JobIo& io) {
      if (args.size() < 2 || !io.device().state().remove_package(args.back())) {
        io.out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n");
        return 1;
      }
      io.out("Success\n");
      return 0;
    });
  }
  if (verb == "path") {
    return now([args](JobIo& io) { return package_path(args, io); });
  }
  if (args.size() >= 2 && verb == "list" && args[1] == "packages") {
    // Every package here is one the user installed (the demo app among them): -s lists none.
    // --show-versioncode (Android 9+) appends each package's versionCode; below API 28 it is
    // refused.
    const bool system_only = std::find(args.begin(), args.end(), "-s") != args.end();
    const bool versions = std::find(args.begin(), args.end(), "--show-versioncode") != args.end();
    return now([system_only, versions](JobIo& io) {
      // The option came with Android 9 (API 28); an older pm stops at it, as its shell command
      // does for any option it does not know.
      if (versions && api_level(io.device()) < 28) {
        io.out("Error: Unknown option: --show-versioncode\n");
        return 255;
      }
      if (system_only) return 0;
      const auto line = [&](const std::string& name) {
        const std::uint64_t version = io.device().state().package_version(name).value_or(1);
        return "package:" + name + (versions ? " versionCode:" + std::to_string(version) : "") +
               "\n";
      };
      std::string out = line(std::string(kDemoPackage));
      for (const std::string& name : io.device().state().packages()) out += line(name);
      io.out(out);
      return 0;
    });
  }
  return nullptr;
}

}  // namespace adbwire::vdevice
