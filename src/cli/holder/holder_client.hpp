// The client side of the connection holder: a Device whose streams the holder for its target
// opens and relays (a StreamOpener over the holder's Unix socket), starting the holder when none
// answers. What the lean front program links instead of the connection runtime.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/target.hpp"

namespace adbwire::cli::holder {

// How to start a holder when none answers for the target.
struct HolderStart {
  // The full program; started as `PROGRAM [flags…] -s TARGET holder --idle N --ready-fd 3`.
  std::filesystem::path program;
  std::vector<std::string> flags;          // global flags for its connect (--auth-timeout)
  std::chrono::seconds idle{1800};         // it ends after this long without a client
  std::chrono::seconds open_wait{30};      // how long it waits for the device to open a stream
  std::chrono::milliseconds ready_wait{};  // how long its connect may take, a person's key
                                           // acceptance included
};

// Something the holder says for the user (it reconnected), once per call that met it.
using NoteHandler = std::function<void(std::string_view)>;

// A Device for target (a tcp: target) through its holder, the holder started first when none
// answers (under a lock, so concurrent calls start one). Its streams are the holder's streams to
// the device; banner, features and serial are those of the held connection; command_timeout as
// ConnectOptions'. Throws adbwire::Error: what the holder's connect met (the codes and sentences
// of Device::connect, relayed), permission_denied (a socket at the holder's path that is not
// this user's holder, or a runtime folder that is not private), timeout (the holder did not
// get ready within start.ready_wait), io_error (it could not be started).
Device connect_through_holder(const Target& target, const HolderStart& start, NoteHandler on_note);

}  // namespace adbwire::cli::holder
