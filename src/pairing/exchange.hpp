// The pairing exchange once TLS is up, the same for both roles (AOSP pairing_connection.cpp):
// the password is the pairing code followed by 64 bytes of keying material exported from
// the TLS session (label "adb-label" with its NUL), so a relayed connection cannot pair; each
// side writes its SPAKE2 message and reads the other's, then writes its PeerInfo encrypted
// with the derived key and reads the other's. Internal to the pairing layer.
#pragma once

#include <optional>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/protocol/pairing.hpp"
#include "base/failure.hpp"
#include "pairing/spake2.hpp"
#include "pairing/tls_channel.hpp"

namespace adbwire::pairing {

// adb's SPAKE2 names, with the NUL that sizeof counts.
inline constexpr std::string_view kClientName{"adb pair client", 16};
inline constexpr std::string_view kServerName{"adb pair server", 16};
inline constexpr std::size_t kExportedKeySize = 64;

// Runs the exchange as `role` (the host is alice) with our PeerInfo {type, data}; returns the
// peer's. Errors: unauthorized (the peer's PeerInfo does not decrypt: the codes differ),
// protocol_error (a bad header, a SPAKE2 message that is not 32 bytes or no point, a PeerInfo
// of the wrong size), timeout, closed, io_error. The detail names channel.peer().
std::optional<protocol::PeerInfo> exchange(TlsChannel& channel, Spake2::Role role,
                                           std::string_view code, protocol::PeerInfoType type,
                                           std::string_view data, Deadline deadline,
                                           detail::Failure& failure);

}  // namespace adbwire::pairing
