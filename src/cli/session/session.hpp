// CLI sessions, a service of the daemon (src/daemon/sessions.hpp): `adbwire open [--session NAME]
// [TARGET]` makes one there, holding one Page (its ref map) over the daemon's connection to the
// device, and the agent verbs (verbs/verb.hpp) run in it as separate CLI calls, each a local round
// trip. Several sessions run side by side, one per agent or device, each under its own name; a
// session ends on `adbwire close`, or after --idle seconds without a call. Files a call asks for
// (snapshots, screenshots) are written under ./.adbwire of the calling process.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/page.hpp"
#include "cli/command.hpp"

namespace adbwire::cli {

// The daemon's socket, through which sessions are reached (for messages). Throws as
// daemon::daemon_paths fails.
std::filesystem::path session_socket_path(const GlobalOptions& globals);

// Opens session `name` on target in the daemon (started when none runs), its Page made with
// options and connected now. An empty target means $ANDROID_SERIAL, else the only device an adb
// server or the USB bus offers (with several, an error lists them). Returns the target it
// connected. Throws busy when a session of that name is already open (the message names its
// target), the connect's error otherwise.
// memory: the session's memory database (absolute, "" = the daemon's default) and whether its
// verbs feed the observation cache.
struct SessionMemory {
  std::filesystem::path db;
  bool observe = false;
};
std::string open_session(const GlobalOptions& globals, std::string_view name,
                         const std::string& target, std::chrono::seconds idle,
                         const PageOptions& options, const SessionMemory& memory = {});

// Runs verb with arguments in globals.session, with files saved under ./.adbwire (print: also
// print their text). Prints the reply (text on stdout; an error on stderr) and returns the exit
// status: 0, or 1 after an error reply. Throws Error(not_found) when no such session is open (the
// message says to run `adbwire open`), invalid_argument when several are and none is named.
int run_verb(const GlobalOptions& globals, std::string_view verb, nlohmann::json arguments,
             bool print = false);

// Ends session `name`. Throws Error(not_found) when it is not open.
void close_session(const GlobalOptions& globals, std::string_view name);

struct SessionInfo {
  std::string name;  // "" for the default session
  std::string target;
  std::filesystem::path socket;
  long pid = 0;  // the daemon's
};
// The open sessions, the default one first.
std::vector<SessionInfo> list_sessions(const GlobalOptions& globals);

}  // namespace adbwire::cli
