// TCP port numbers written as text: the port of a target (tcp:HOST:PORT, HOST:PORT,
// server:HOST:PORT/…), ANDROID_ADB_SERVER_PORT and ADB_SERVER_SOCKET, forward and reverse
// specs (tcp:PORT), tcpip:PORT and the port an adb server says it bound. Internal; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace adbwire::detail {

// A port to connect to: decimal digits only, all of text, 1..65535 (leading zeros allowed, as
// adb's strtol allows them). nullopt for anything else: empty, a sign, spaces, hex, 0, 65536 or
// more.
std::optional<std::uint16_t> parse_port(std::string_view text) noexcept;

// A port to listen on: the same, but 0 as well ("any free port", as in forward tcp:0).
std::optional<std::uint16_t> parse_listen_port(std::string_view text) noexcept;

}  // namespace adbwire::detail
