// CLI sessions: `adbwire open [--session NAME] [TARGET]` starts a small daemon that holds one
// Page (one device connection and its ref map) and serves the agent verbs (verbs/verb.hpp) over
// a Unix socket, so a CLI call costs a local round trip, not an ADB handshake. Several sessions
// run side by side, one per agent or device, each under its own name.
//
// Socket: for the default session $ADBWIRE_SESSION when set, else <runtime>/session.sock; for
// session NAME <runtime>/session-NAME.sock, where <runtime> is $XDG_RUNTIME_DIR/adbwire, else
// /tmp/adbwire-UID (base/private_files.hpp: the folder 0700, the socket 0600: only the user who
// opened the session can drive it). The daemon exits on `adbwire close`, or after --idle seconds
// without a request. A device that drops is connected again on the next call, and the reply says
// so.
//
// Wire format: MCP's JSON-RPC, one message a line (the daemon is the MCP server of src/mcp on
// the socket): a tools/call of a verb, whose arguments may hold "_cli": {"dir": "/abs/.adbwire",
// "print": bool} to have snapshots and images saved as files there (the reply then gives their
// paths), and the methods adbwire/info (name, target, pid) and adbwire/close.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/page.hpp"

namespace adbwire::cli {

// Where session `name` ("" = the default session) listens (see above). Creates the folder 0700
// when missing. Throws Error(permission_denied) when it is not private; invalid_argument for a
// name other than letters, digits, '-', '_' and '.'.
std::filesystem::path session_socket_path(std::string_view name);

// Starts the daemon of session `name` connected to target with connect and a Page made with
// options (on_warning is the session's own: a warning goes out with the next reply). An empty
// target means $ANDROID_SERIAL, else the only device an adb server or the USB bus offers (with
// several, an error lists them). Returns the target it connected. Throws busy when a session of
// that name is already open (the message names its target), the daemon's connect error
// otherwise.
std::string open_session(std::string_view name, const std::string& target,
                         std::chrono::seconds idle, const PageOptions& options,
                         const ConnectOptions& connect);

// Runs verb with arguments in session `name`, with files saved under ./.adbwire (print: also
// print their text). Prints the reply (text on stdout; an error on stderr) and returns the exit
// status: 0, or 1 after an error reply. Throws Error(not_found) when no such session is running
// (the message says to run `adbwire open`).
int run_verb(std::string_view name, std::string_view verb, nlohmann::json arguments,
             bool print = false);

// Ends session `name`. Throws Error(not_found) when it is not running.
void close_session(std::string_view name);

struct SessionInfo {
  std::string name;  // "" for the default session
  std::string target;
  std::filesystem::path socket;
  long pid = 0;
};
// The sessions that answer now, the default one first.
std::vector<SessionInfo> list_sessions();

}  // namespace adbwire::cli
