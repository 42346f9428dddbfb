#include "adbwire/protocol/pairing.hpp"

#include <algorithm>

#include "adbwire/error.hpp"

namespace adbwire::protocol {

std::array<std::uint8_t, kPairingHeaderSize> encode_pairing_header(PairingPacketType type,
                                                                   std::uint32_t length) {
  return {kPairingVersion,
          static_cast<std::uint8_t>(type),
          static_cast<std::uint8_t>(length >> 24),
          static_cast<std::uint8_t>(length >> 16),
          static_cast<std::uint8_t>(length >> 8),
          static_cast<std::uint8_t>(length)};
}

std::error_code parse_pairing_header(std::span<const std::uint8_t, kPairingHeaderSize> bytes,
                                     PairingHeader& out, std::string& why) {
  if (bytes[0] != kPairingVersion) {
    why = "pairing packet version " + std::to_string(bytes[0]) + " (only version " +
          std::to_string(kPairingVersion) + " exists)";
    return errc::protocol_error;
  }
  if (bytes[1] > static_cast<std::uint8_t>(PairingPacketType::peer_info)) {
    why = "unknown pairing packet type " + std::to_string(bytes[1]);
    return errc::protocol_error;
  }
  const std::uint32_t length = (std::uint32_t{bytes[2]} << 24) | (std::uint32_t{bytes[3]} << 16) |
                               (std::uint32_t{bytes[4]} << 8) | std::uint32_t{bytes[5]};
  if (length == 0 || length > kMaxPairingPayload) {
    why = "pairing packet of " + std::to_string(length) + " bytes (1 to " +
          std::to_string(kMaxPairingPayload) + " allowed)";
    return errc::protocol_error;
  }
  out.type = static_cast<PairingPacketType>(bytes[1]);
  out.length = length;
  return {};
}

std::error_code encode_peer_info(PeerInfoType type, std::string_view data,
                                 std::vector<std::uint8_t>& out) {
  if (data.size() > kPeerInfoSize - 2 || data.find('\0') != std::string_view::npos) {
    return errc::invalid_argument;
  }
  out.assign(kPeerInfoSize, 0);
  out[0] = static_cast<std::uint8_t>(type);
  std::copy(data.begin(), data.end(), out.begin() + 1);
  return {};
}

std::error_code parse_peer_info(std::span<const std::uint8_t> bytes, PeerInfo& out,
                                std::string& why) {
  if (bytes.size() != kPeerInfoSize) {
    why = "PeerInfo of " + std::to_string(bytes.size()) + " bytes (it has " +
          std::to_string(kPeerInfoSize) + ")";
    return errc::protocol_error;
  }
  auto data = bytes.subspan(1);
  auto end = std::find(data.begin(), data.end(), std::uint8_t{0});
  if (end == data.end()) {
    why = "PeerInfo data without a terminating NUL";
    return errc::protocol_error;
  }
  out.type = bytes[0];
  out.data.assign(data.begin(), end);
  return {};
}

}  // namespace adbwire::protocol
