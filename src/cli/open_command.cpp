#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/helper_option.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"
#include "verbs/memory_store.hpp"

namespace adbwire::cli {
namespace {

struct OpenArgs {
  std::string target;
  std::string session;
  int idle = 1800;
  PageOptions::Helper helper = PageOptions::Helper::off;
  bool no_web = false;
  std::string ref_check = "always";
  StealthOptions stealth;
  std::filesystem::path memory_db;
  bool observe = false;
};

}  // namespace

void add_open_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<OpenArgs>();
  auto* cmd = app.add_subcommand(
      "open",
      "start a session: connect once, then snapshot/tap/type/… reuse the connection. TARGET: -s, "
      "then $ANDROID_SERIAL, $ADB_SERIAL, else the only device an adb server or the USB bus "
      "offers");
  cmd->add_option("target", args->target, "the device");
  cmd->add_option("--session", args->session,
                  "name the session, to run several side by side (later commands take "
                  "--session NAME)");
  cmd->add_option("--idle", args->idle, "end the session after this many seconds without a command")
      ->check(CLI::Range(1, 7 * 24 * 3600))
      ->capture_default_str();
  add_helper_option(*cmd, args->helper);
  add_ref_check_option(*cmd, args->ref_check);
  cmd->add_flag(
      "--no-web", args->no_web,
      "show WebViews as the device reports them, without reading debuggable pages over CDP");
  add_stealth_options(*cmd, args->stealth);
  add_memory_options(*cmd, args->memory_db, args->observe);
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      const std::string name = args->session.empty() ? globals.session : args->session;
      PageOptions options;
      options.stealth = args->stealth;
      options.helper = args->helper;
      options.web = !args->no_web;
      parse_ref_check(args->ref_check, options.ref_check);
      // The daemon runs in the environment of whoever started it: the database is this
      // command's (its option, $ADBWIRE_MEMORY_DB, its HOME), from its working folder.
      std::filesystem::path db =
          args->memory_db.empty() ? verbs::default_memory_db() : args->memory_db;
      if (!db.empty()) db = std::filesystem::absolute(db);
      const std::string target =
          open_session(globals, name, args->target.empty() ? globals.serial : args->target,
                       std::chrono::seconds(args->idle), options, {db, args->observe});
      return print("session " + (name.empty() ? std::string("default") : "'" + name + "'") +
                   " open on " + target + " (" + session_socket_path(globals).string() + ")\n")
                 ? 0
                 : 1;
    };
  });
}

}  // namespace adbwire::cli
