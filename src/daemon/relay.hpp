// Copies one device stream to and from a client's socket until either side ends it.
#pragma once

#include <cstdint>
#include <span>

#include "adbwire/stream.hpp"

namespace adbwire::daemon {

// How the device's bytes reach the client.
enum class RelayFraming {
  // As they are, the socket closed at the end: what adb's server does, for adb's clients.
  raw,
  // As DATA frames ending in DONE, or in FAIL when the connection failed under the stream
  // (daemon_protocol.hpp): for adbwire's clients, so a dropped device is an error, never a quietly
  // short output.
  framed,
};

// Relays until the stream ends, the client closes its socket (ADB has no half-close: that closes
// the stream) or the connection fails. early: the client's bytes that came with its request,
// sent to the device first. The client's bytes go to the device on a thread of their own; the
// device's are sent on the calling thread, so a slow client slows the device, not our memory.
// Returns how many of the device's bytes it sent to the client.
std::uint64_t relay(Stream& stream, int client, std::span<const std::uint8_t> early,
                    RelayFraming framing);

}  // namespace adbwire::daemon
