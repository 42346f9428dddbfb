// What the session code of both programs shares: the socket round trip. Internal to
// src/cli/session.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace adbwire::cli {

// A connected Unix socket, or -1 when nothing listens there.
int connect_socket(const std::filesystem::path& path);
// Everything the peer (named for messages) sends until it closes; timeout when a socket's
// receive timeout passes first, limit_exceeded past 64 MiB (no reply of a session is that long).
std::string read_all(int fd, std::string_view peer);
// "the default session" or "session 'NAME'", for messages.
std::string session_name(std::string_view name);
// One request to session `name`: its JSON-RPC result (an error reply is thrown as Error).
// With no name and no default session, the only named session answers (or_the_only_named).
nlohmann::json ask(std::string_view name, const nlohmann::json& request,
                   bool or_the_only_named = true);

}  // namespace adbwire::cli
