// Device through a running adb server (server: targets): one adb-server socket per stream.
// Internal.
#pragma once

#include <memory>

#include "adbwire/connect_options.hpp"
#include "adbwire/server_address.hpp"
#include "adbwire/target.hpp"
#include "base/failure.hpp"
#include "connection/stream_opener.hpp"
#include "server/server_address_detail.hpp"

namespace adbwire::connection {

// Device::connect for server: targets: the device must be listed by that server in state
// "device". The target's address wins, then options.server, then the environment. Errors:
// connection_refused (no server), not_found (no such serial), unauthorized, device_offline,
// timeout (options.connect_timeout), protocol_error.
std::shared_ptr<StreamOpener> connect_through_server(const Target& target,
                                                     const ConnectOptions& options,
                                                     detail::Failure& failure);

}  // namespace adbwire::connection
