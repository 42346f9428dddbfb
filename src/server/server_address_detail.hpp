// Where the adb server is (ConnectOptions::server, then the environment), with the error as a
// Failure: ConnectOptions carries a ServerAddress, so resolving it lives with the connection
// options, below the adb server client that uses it. Internal.
#pragma once

#include "adbwire/server_address.hpp"
#include "base/failure.hpp"

namespace adbwire::server {

// resolve_server_address with the error as a Failure.
ServerAddress resolve_address(const ServerAddress& given, detail::Failure& failure);

}  // namespace adbwire::server
