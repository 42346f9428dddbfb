#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
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
      print(install(device, apks, options, on_progress, deadline));
      return 0;
    };
  });
}

}  // namespace adbwire::cli
