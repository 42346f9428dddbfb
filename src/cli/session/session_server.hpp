// The daemon side of CLI sessions (see session.hpp).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "adbwire/page.hpp"

namespace adbwire::cli {

// Connects a Page made with options to target with connect (the global flags: -H/-P, --record,
// --auth-timeout), listens on socket, writes "ok\n" (or "error CODE MESSAGE\n") to ready_fd and
// closes it, then serves the verbs until adbwire/close or `idle` without a request. Returns the
// process exit code. Runs in the daemon process only.
int serve_session(const std::string& name, const std::string& target, std::chrono::seconds idle,
                  PageOptions options, const ConnectOptions& connect,
                  const std::filesystem::path& socket, int ready_fd);

}  // namespace adbwire::cli
