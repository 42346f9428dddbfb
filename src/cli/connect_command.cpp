// adbwire connect, disconnect and reconnect with adb's meaning: a TCP device this user's daemon
// keeps (as adb's server keeps the devices `adb connect` names), adb's sentences on stdout and its
// exit codes. `--session NAME connect TARGET` is the session verb, as before.
#include <memory>
#include <string>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/daemon_connect.hpp"
#include "cli/device_selection.hpp"
#include "cli/session/session.hpp"
#include "cli/terminal_text.hpp"
#include "daemon/client.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

// A connect waits as the daemon's does: the TCP connect and the handshake (ConnectOptions'
// connect_timeout) and a person accepting the key (auth_timeout), with room to spare.
constexpr auto kConnectWait = 90s;
constexpr auto kQueryWait = 10s;

// adb's usage lines ("adb: usage: adb connect HOST[:PORT]"), exit 1.
int usage(const std::string& line) {
  print_error("adbwire: usage: adbwire " + line);
  return 1;
}

// Asks the daemon (started when start is given; else only one that runs: false and no failure
// when none does). Throws what reaching it met.
bool ask(const GlobalOptions& globals, const daemon::DaemonStart* start, const std::string& request,
         std::chrono::seconds wait, std::string& reply, detail::Failure& failure) {
  return daemon::ask_daemon(globals.full_program, start, request, deadline_after(wait), reply,
                            failure);
}

int run_connect(const GlobalOptions& globals, const std::vector<std::string>& words) {
  if (!globals.session.empty()) {
    if (words.size() != 1) return usage("--session NAME connect TARGET");
    return run_verb(globals, "connect", {{"target", words.front()}}, false);
  }
  if (words.size() != 1) return usage("connect HOST[:PORT]");
  const daemon::DaemonStart start = daemon_start(globals);
  std::string reply;
  detail::Failure failure;
  ask(globals, &start, "host:connect:" + words.front(), kConnectWait, reply, failure);
  failure.throw_if_failed();
  // As adb: the answer is a sentence, and a failed connect still exits 0 (scripts read it).
  print(reply + "\n");
  return 0;
}

// Where ADDRESS is connected: the daemon and a running adb server (-H/-P) that lists it each let
// go of it; with no ADDRESS both let go of every TCP device.
int run_disconnect(const GlobalOptions& globals, const std::vector<std::string>& words) {
  if (words.size() > 1) return usage("disconnect [HOST[:PORT]]");
  const std::string address = words.empty() ? std::string() : words.front();
  std::string reply;
  detail::Failure daemon_failure;
  const bool daemon_dropped =
      ask(globals, nullptr, "host:disconnect:" + address, kQueryWait, reply, daemon_failure);
  if (daemon_failure && daemon_failure.code != errc::not_found) daemon_failure.throw_if_failed();

  std::error_code error;
  std::string server_reply;
  const AdbServer server(server_address(globals), 2s, error);
  if (!error) server_reply = server.disconnect(address, deadline_after(kQueryWait), error);
  const bool server_dropped = !error;
  if (error && error != errc::not_found && error != errc::connection_refused) {
    throw Error(error, last_error_detail());
  }
  if (!daemon_dropped && !server_dropped) {
    // adb's sentence, naming HOST:PORT as its server does.
    throw Error(errc::not_found, "no such device '" + daemon::tcp_serial(address) + "'");
  }
  print((daemon_dropped ? reply : server_reply) + "\n");
  return 0;
}

// adb reconnect [device|offline]: the selected device's connection dropped and made again
// (`device`: by the device's adbd, which drops it itself; `offline`: every device that is not
// online).
int run_reconnect(const GlobalOptions& globals, const std::vector<std::string>& words) {
  if (words.size() > 1 ||
      (words.size() == 1 && words.front() != "device" && words.front() != "offline")) {
    return usage("reconnect [device|offline]");
  }
  const std::string what = words.empty() ? std::string() : words.front();
  if (what == "offline") {
    std::string reply;
    detail::Failure failure;
    ask(globals, nullptr, "host:reconnect-offline", kConnectWait, reply, failure);
    failure.throw_if_failed();
    print(reply + "\n");
    return 0;
  }
  GlobalOptions selected = globals;
  try {
    selected.serial = select_target(globals);
  } catch (const Error& e) {
    // adb's server answers this request OKAY with the sentence, so adb prints it on stdout and
    // exits 0: its first line ("no devices/emulators found", "more than one device/emulator").
    const std::string& detail = e.detail();
    print(detail.substr(0, detail.find('\n')) + "\n");
    return 0;
  }
  if (what == "device") {
    // adbd drops the connection when asked; like adb, nothing is printed and it exits 0.
    Device device = globals.connector(selected);
    std::error_code error;
    device.open("reconnect", deadline_after(kQueryWait), error);
    return 0;
  }
  if (!daemon_serves(selected.serial, globals.no_daemon, !globals.record.empty(), "", "")) {
    throw Error(errc::invalid_argument,
                "reconnect drops the connection adbwire's daemon holds; " + selected.serial +
                    " is held by an adb server (or --no-daemon/--record was given): ask it with "
                    "`adb reconnect`");
  }
  const daemon::DaemonStart start = daemon_start(globals);
  std::string reply;
  detail::Failure failure;
  ask(globals, &start, "host-serial:" + selected.serial + ":reconnect", kConnectWait, reply,
      failure);
  failure.throw_if_failed();
  print(reply + "\n");
  return 0;
}

using Verb = int (*)(const GlobalOptions&, const std::vector<std::string>&);

void add(CLI::App& app, const GlobalOptions& globals, Run& run, const char* name, const char* help,
         const char* words_help, Verb verb) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(name, help);
  cmd->add_option("words", *words, words_help);
  cmd->callback([words, &globals, &run, verb] {
    run = [words, &globals, verb] { return verb(globals, *words); };
  });
}

}  // namespace

void add_connect_commands(CLI::App& app, const GlobalOptions& globals, Run& run) {
  add(app, globals, run, "connect",
      "connect to a device over TCP and keep it in this user's daemon, as `adb connect` "
      "(--session NAME connect TARGET: the session verb)",
      "HOST[:PORT] (port 5555 when none is given)", run_connect);
  add(app, globals, run, "disconnect",
      "drop a TCP device wherever it is connected (this user's daemon, a running adb server), "
      "or every one with no argument, as `adb disconnect`",
      "[HOST[:PORT]]", run_disconnect);
  add(app, globals, run, "reconnect",
      "drop the daemon's connection to the device and connect again, as `adb reconnect`",
      "[device|offline]: device asks the device's adbd to drop it; offline reconnects every "
      "device that is not online",
      run_reconnect);
}

}  // namespace adbwire::cli
