// adbwire mcp [TARGET]: the MCP server for agents, JSON-RPC on stdin/stdout (src/mcp).
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "base/signal_cleanup.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/helper_option.hpp"
#include "cli/terminal_text.hpp"
#include "mcp/device_tools.hpp"
#include "mcp/stdio.hpp"

namespace adbwire::cli {
namespace {

struct McpArgs {
  std::string target;
  mcp::DeviceToolsOptions tools;
  int settle_ms = 500;
  bool no_web = false;
  double auth_timeout = -1;
  double keyring_timeout = 10;
  std::string ref_check = "always";
};

constexpr const char* kInstructions =
    "Drive an Android device. Start with snapshot: it lists the screen's elements, and those you "
    "can act on carry [ref=N]. Act with tap / type / scroll / long_press / drag on those refs, or "
    "by selector in one call (tap with text, id or desc), or press, back, home, launch, open. "
    "Every action re-checks its ref against the screen: if the element moved the reply says "
    "where it went; if it is gone the call fails with a stale ref and nothing is sent, so take a "
    "new snapshot. Use find to locate elements, wait after something loads, and screenshot when "
    "appearance matters or the screen has no accessible elements (then tap by x and y). Every "
    "tool takes an optional device; devices lists them.";

int run_mcp(McpArgs& args, const GlobalOptions& globals) {
  // A client that goes away mid-reply must not kill us with SIGPIPE: the next read sees EOF.
  std::signal(SIGPIPE, SIG_IGN);
  detail::remove_on_signals();  // a recording being pulled leaves no temporary file
  mcp::DeviceToolsOptions options = args.tools;
  options.target = args.target.empty() ? globals.serial : args.target;
  GlobalOptions connect_globals = globals;
  if (args.auth_timeout >= 0) connect_globals.auth_timeout = args.auth_timeout;
  options.connect = connect_options(connect_globals);
  options.verbs.settle = std::chrono::milliseconds(args.settle_ms);
  options.verbs.secrets.keyring_timeout =
      std::chrono::milliseconds(std::llround(args.keyring_timeout * 1000));
  options.page.web = !args.no_web;
  parse_ref_check(args.ref_check, options.page.ref_check);
  const auto to_stderr = [](std::string_view message) {
    print_error("adbwire mcp: " + std::string(message));
  };
  options.log = to_stderr;
  options.page.on_warning = to_stderr;
  mcp::DeviceTools tools(std::move(options));
  mcp::ServerInfo info;
  info.version = ADBWIRE_VERSION;
  info.instructions = kInstructions;
  return mcp::serve_stdio(tools, std::move(info));
}

}  // namespace

void add_mcp_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<McpArgs>();
  auto* cmd = app.add_subcommand(
      "mcp",
      "serve agents over the Model Context Protocol (JSON-RPC on stdin/stdout): snapshot, tap, "
      "type, screenshot … as MCP tools");
  cmd->add_option(
      "target", args->target,
      "default device (tcp:HOST:PORT, HOST:PORT, a serial; default -s or $ANDROID_SERIAL); "
      "each tool call may name another");
  cmd->add_flag("--allow-shell", args->tools.verbs.allow_shell,
                "offer the `shell` tool (runs any command the device's shell user may)");
  cmd->add_flag("--allow-pair", args->tools.verbs.allow_pair,
                "offer the `pair` tool (Wireless debugging pairing: the paired phone trusts this "
                "computer's key for good)");
  cmd->add_flag("--auto-snapshot", args->tools.verbs.auto_snapshot,
                "actions reply with the snapshot taken after the screen settles");
  cmd->add_option("--settle-ms", args->settle_ms, "pause before --auto-snapshot's snapshot")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  cmd->add_option(
         "--max-snapshot-chars", args->tools.verbs.max_snapshot_chars,
         "longer snapshots are saved to a file and summarized (about 4 characters a token)")
      ->check(CLI::Range(1000, 10000000))
      ->capture_default_str();
  add_helper_option(*cmd, args->tools.page.helper);
  add_ref_check_option(*cmd, args->ref_check);
  cmd->add_flag(
      "--no-web", args->no_web,
      "show WebViews as the device reports them, without reading debuggable pages over CDP");
  cmd->add_option("--auth-timeout", args->auth_timeout,
                  "seconds a person has to accept this computer's key on a device (default: "
                  "the global --auth-timeout, else 60)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option(
      "--snapshot-dir", args->tools.snapshot_dir,
      "where oversized snapshots, page sources and recordings are saved, 0600 (default: a "
      "private folder in the per-user runtime folder; a folder others may enter gets a private "
      "folder inside it)");
  add_memory_options(*cmd, args->tools.verbs.memory_db, args->tools.verbs.observe);
  cmd->add_option("--allow-install-from", args->tools.verbs.host_files.allowed,
                  "a folder whose APKs the install tool, and whose files the push tool, may "
                  "send to a device, and where the pull tool may write (repeat for several; "
                  "none by default, so an agent cannot send this computer's files)")
      ->expected(1)
      ->allow_extra_args(false);
  add_stealth_options(*cmd, args->tools.page.stealth);
  cmd->add_option("--secrets-file", args->tools.verbs.secrets.file,
                  "a file of NAME=VALUE lines, mode 0600, whose values type's secret types "
                  "without the agent seeing them (default $ADBWIRE_SECRETS_FILE; environment "
                  "variables ADBWIRE_SECRET_NAME are secrets too)");
  cmd->add_flag("--secrets-keyring", args->tools.verbs.secrets.keyring,
                "also take secrets from the desktop keyring (the Secret Service: items of the "
                "schema org.adbwire.Secret by their attribute name; default: on when "
                "$ADBWIRE_SECRETS_KEYRING is 1)");
  cmd->add_option("--secrets-keyring-timeout", args->keyring_timeout,
                  "seconds a keyring lookup may take, an unlock prompt included, before the "
                  "call fails with a timeout naming the secret (default 10)")
      ->check(CLI::Range(0.1, 3600.0));
  cmd->callback(
      [args, &globals, &run] { run = [args, &globals] { return run_mcp(*args, globals); }; });
}

}  // namespace adbwire::cli
