#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/helper_option.hpp"
#include "cli/session/session.hpp"

namespace adbwire::cli {
namespace {

struct OpenArgs {
  std::string target;
  int idle = 1800;
  PageOptions::Helper helper = PageOptions::Helper::off;
  bool no_web = false;
};

}  // namespace

void add_open_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<OpenArgs>();
  auto* cmd = app.add_subcommand(
      "open", "start a session: connect once, then snapshot/tap/type/… reuse the connection");
  cmd->add_option("target", args->target, "device (default: -s, then $ANDROID_SERIAL)");
  cmd->add_option("--idle", args->idle, "end the session after this many seconds without a command")
      ->check(CLI::Range(1, 7 * 24 * 3600))
      ->capture_default_str();
  add_helper_option(*cmd, args->helper);
  cmd->add_flag(
      "--no-web", args->no_web,
      "show WebViews as the device reports them, without reading debuggable pages over CDP");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      const std::string target = args->target.empty() ? globals.serial : args->target;
      PageOptions options;
      options.helper = args->helper;
      options.web = !args->no_web;
      open_session(target, std::chrono::seconds(args->idle), options, connect_options(globals));
      std::printf("session open (%s)\n", session_socket_path().c_str());
      return std::fflush(stdout) == 0 ? 0 : 1;
    };
  });
}

}  // namespace adbwire::cli
