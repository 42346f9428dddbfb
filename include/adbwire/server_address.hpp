// Where an adb server listens: the -H/-P of adb, ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT.
#pragma once

#include <cstdint>
#include <string>
#include <system_error>

namespace adbwire {

// A value type. Empty parts are filled by resolve_server_address when a connection is made.
struct ServerAddress {
  std::string host;        // empty: from the environment, else 127.0.0.1
  std::uint16_t port = 0;  // 0: from the environment, else 5037
};

// Fills the parts left empty, as adb does: $ADB_SERVER_SOCKET ("tcp:HOST:PORT" or
// "tcp:PORT") when host and port are both empty, then $ANDROID_ADB_SERVER_PORT for the
// port, else 127.0.0.1 and 5037. The environment is read only for parts left empty.
// Errors: invalid_argument when a variable is malformed (the message names it).
ServerAddress resolve_server_address(const ServerAddress& given);
ServerAddress resolve_server_address(const ServerAddress& given, std::error_code& error);

// "HOST:PORT" ("[::1]:5037" for IPv6), for messages and targets.
std::string to_string(const ServerAddress& address);

}  // namespace adbwire
