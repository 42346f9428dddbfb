#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/install.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct InstallArgs {
  std::vector<std::string> apks;
  bool replace = false;  // adb's -r; reinstalling is the default since Android 7 all the same
  bool downgrade = false;
  bool grant = false;
  bool test = false;
  bool streaming = false;
  bool no_streaming = false;
  TimeoutOption timeout;
};

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), text.end() - suffix.size(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

// One APK as adb 29's install says it: the method first on stdout, then the file's problem or
// the package manager's own answer ("adb: failed to install x.apk: Failure [...]"), exit 1.
int install_one(Device& device, const std::filesystem::path& apk, InstallOptions options,
                const InstallProgressHandler& on_progress, Deadline deadline) {
  if (options.method == InstallMethod::automatic) {
    options.method = device.has_feature("cmd") ? InstallMethod::streamed : InstallMethod::push;
  }
  const bool streamed = options.method == InstallMethod::streamed;
  print(streamed ? "Performing Streamed Install\n" : "Performing Push Install\n");
  const std::string name = apk.string();
  if (!ends_with_ignoring_case(name, ".apk")) {
    print_error(streamed ? "adbwire: filename doesn't end .apk or .apex: " + name
                         : std::string("adbwire: need APK file on command line"));
    return 1;
  }
  struct stat info {};
  if (::stat(name.c_str(), &info) != 0) {
    print_error("adbwire: failed to stat " + name + ": " + std::strerror(errno));
    return 1;
  }
  try {
    print(install(device, {apk}, options, on_progress, deadline));
  } catch (const Error& e) {
    if (e.code() != errc::command_failed) throw;
    print_error("adbwire: " + e.detail());
    return 1;
  }
  return 0;
}

}  // namespace

void add_install_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<InstallArgs>();
  auto* cmd =
      app.add_subcommand("install",
                         "install an APK, or several as the splits of one app "
                         "(adb install / install-multiple): install [-r] [-d] [-g] [-t] APK…");
  cmd->add_option("apks", args->apks, "the APK files")->required()->expected(1, -1);
  cmd->add_flag("-r", args->replace, "replace an installed app, keeping its data (always done)");
  cmd->add_flag("-d", args->downgrade, "allow a lower versionCode");
  cmd->add_flag("-g", args->grant, "grant every runtime permission");
  cmd->add_flag("-t", args->test, "allow test-only APKs");
  cmd->add_flag("--streaming", args->streaming,
                "stream the APK into the package manager (needs `cmd`)");
  cmd->add_flag("--no-streaming", args->no_streaming,
                "push to /data/local/tmp first, then pm install");
  add_timeout_option(*cmd, args->timeout, "--timeout",
                     "give up after this many seconds in all (default: only when the device "
                     "stalls)");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      InstallOptions options;
      options.downgrade = args->downgrade;
      options.grant_permissions = args->grant;
      options.allow_test = args->test;
      if (args->streaming && args->no_streaming) {
        throw Error(errc::invalid_argument, "--streaming and --no-streaming exclude each other");
      }
      if (args->streaming) options.method = InstallMethod::streamed;
      if (args->no_streaming) options.method = InstallMethod::push;
      const std::vector<std::filesystem::path> apks(args->apks.begin(), args->apks.end());
      const bool tty = ::isatty(STDERR_FILENO) == 1;
      InstallProgressHandler on_progress;
      if (tty) {
        on_progress = [](std::uint64_t sent, std::uint64_t total) {
          progress(format("Performing install: %3d%%",
                          total == 0 ? 100 : static_cast<int>(sent * 100 / total)));
          if (sent == total) print_error("");
        };
      }
      Device device = connect_device(globals);
      const Deadline deadline = args->timeout.deadline();
      if (apks.size() != 1) {
        print(install(device, apks, options, on_progress, deadline));
        return 0;
      }
      return install_one(device, apks.front(), options, on_progress, deadline);
    };
  });
}

}  // namespace adbwire::cli
