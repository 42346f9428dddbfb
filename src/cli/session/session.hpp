// The CLI session: `adbwire open` starts a small daemon that holds one Page (one device
// connection and its ref map) and answers the other subcommands over a Unix socket, so a
// CLI call costs a local round trip, not an ADB handshake.
//
// Socket: $ADBWIRE_SESSION when set, else $XDG_RUNTIME_DIR/adbwire/session.sock, else
// /tmp/adbwire-UID/session.sock. The folder is created 0700 and the socket is 0600: only
// the user who opened the session can drive it. The daemon exits on `adbwire close`, or
// after --idle seconds without a request.
//
// Wire format: the client sends one JSON object on one line, {"cmd":"tap","args":{…},
// "dir":"/abs/.adbwire"}, and reads one line back: {"ok":true,"out":"…"} or
// {"ok":false,"code":N,"message":"…"} (N an adbwire::errc value), either with "warning":"…"
// when the session has something to say once (the on-device dumper fell back).
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "adbwire/page.hpp"

namespace adbwire::cli {

// Where the session socket is (see above). Creates its folder 0700 when missing.
// Throws Error(permission_denied) when the folder is not private (see runtime_folder.hpp).
std::filesystem::path session_socket_path();

// Starts a daemon connected to target ("" = $ANDROID_SERIAL) with connect and a Page made with
// options (helper, web …; its on_warning is the session's own), replacing a running session.
// Returns once it is connected and listening. Throws the daemon's connect error.
void open_session(const std::string& target, std::chrono::seconds idle, const PageOptions& options,
                  const ConnectOptions& connect);

// Sends one request to the running session and returns its "out". Throws
// Error(not_found) when no session is running (the message says to run `adbwire open`),
// or the Error the session reported.
std::string call_session(std::string_view cmd, const nlohmann::json& args);

// Sends cmd and prints what it returns on stdout; the exit code for main().
int run_in_session(std::string_view cmd, const nlohmann::json& args);

}  // namespace adbwire::cli
