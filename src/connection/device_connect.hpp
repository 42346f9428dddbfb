// Device::connect that says when the device waits for a person to accept our key, for the
// daemon, which lists such a device `unauthorized` meanwhile and can give up on it.
#pragma once

#include <string_view>
#include <system_error>

#include "adbwire/connect_options.hpp"
#include "adbwire/device.hpp"
#include "connection/connection.hpp"

namespace adbwire::connection {

// Device::connect (the error_code form, same errors), on_key_offered told as KeyOffered says
// (direct TCP and USB connections; an adb server's never calls it).
Device connect_watching_key(std::string_view target, const ConnectOptions& options,
                            const KeyOffered& on_key_offered, std::error_code& error);

}  // namespace adbwire::connection
