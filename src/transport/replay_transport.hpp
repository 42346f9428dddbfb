// The replay transport: the device end of a link played from a capture (capture/replay_script),
// beside the other transports. It plays the script's device messages as the host reads and
// checks every byte the host writes against the capture. Internal.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "base/mutex.hpp"
#include "capture/replay_script.hpp"
#include "transport/transport.hpp"

namespace asio {
class io_context;
}  // namespace asio

namespace adbwire::detail {

// A replay's script, shared by its transport (on the I/O thread) and its Replay (the caller).
struct ReplayState {
  explicit ReplayState(capture_detail::ReplayScript s) : script(std::move(s)) {}
  mutable Mutex mutex;
  capture_detail::ReplayScript script ADBWIRE_GUARDED_BY(mutex);
};

}  // namespace adbwire::detail

namespace adbwire::transport {

// A transport whose peer is the script in state; description names it in messages.
std::unique_ptr<Transport> make_replay_transport(asio::io_context& io,
                                                 std::shared_ptr<detail::ReplayState> state,
                                                 std::string description);

}  // namespace adbwire::transport
