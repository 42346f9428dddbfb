// The framing of Wireless debugging's pairing exchange (Android 11+), inside TLS on the
// phone's pairing port: a 6-byte header then a payload, and the PeerInfo each side sends
// encrypted. AOSP packages/modules/adb pairing_connection/pairing_connection.cpp and
// include/adb/pairing/pairing_connection.h. See pairing.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire::protocol {

inline constexpr std::uint8_t kPairingVersion = 1;
inline constexpr std::size_t kPairingHeaderSize = 6;
inline constexpr std::size_t kPeerInfoSize = 8192;
// AOSP refuses a payload of 0 or above 2 × kPeerInfoSize.
inline constexpr std::uint32_t kMaxPairingPayload = 2 * kPeerInfoSize;

enum class PairingPacketType : std::uint8_t { spake2_message = 0, peer_info = 1 };

struct PairingHeader {
  PairingPacketType type = PairingPacketType::spake2_message;
  std::uint32_t length = 0;
};

// {version 1, type, length as 4 bytes big-endian}.
std::array<std::uint8_t, kPairingHeaderSize> encode_pairing_header(PairingPacketType type,
                                                                   std::uint32_t length);

// Checks a received header as AOSP's ReadHeader does: version 1, a known type, a length of
// 1..kMaxPairingPayload. protocol_error otherwise, with why saying which (and the value).
std::error_code parse_pairing_header(std::span<const std::uint8_t, kPairingHeaderSize> bytes,
                                     PairingHeader& out, std::string& why);

enum class PeerInfoType : std::uint8_t { rsa_public_key = 0, device_guid = 1 };

// The fixed 8192-byte PeerInfo {u8 type, data}: data then NULs. invalid_argument (nothing
// written) when data holds a NUL or does not leave room for one (8190 bytes at most).
std::error_code encode_peer_info(PeerInfoType type, std::string_view data,
                                 std::vector<std::uint8_t>& out);

// A peer's PeerInfo: its type byte as sent and its data up to the first NUL.
struct PeerInfo {
  std::uint8_t type = 0;
  std::string data;
};

// protocol_error unless bytes is exactly kPeerInfoSize long and data ends in a NUL.
std::error_code parse_peer_info(std::span<const std::uint8_t> bytes, PeerInfo& out,
                                std::string& why);

}  // namespace adbwire::protocol
