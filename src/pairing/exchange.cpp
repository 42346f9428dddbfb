#include "pairing/exchange.hpp"

#include <array>
#include <vector>

#include "pairing/pairing_cipher.hpp"

namespace adbwire::pairing {
namespace {

constexpr char kExportLabel[] = "adb-label";  // sizeof: the NUL is part of the label

bool write_packet(TlsChannel& channel, protocol::PairingPacketType type,
                  std::span<const std::uint8_t> payload, Deadline deadline,
                  detail::Failure& failure) {
  const auto header =
      protocol::encode_pairing_header(type, static_cast<std::uint32_t>(payload.size()));
  std::vector<std::uint8_t> packet(header.begin(), header.end());
  packet.insert(packet.end(), payload.begin(), payload.end());
  return channel.write(packet, deadline, failure);
}

std::optional<std::vector<std::uint8_t>> read_packet(TlsChannel& channel,
                                                     protocol::PairingPacketType expected,
                                                     Deadline deadline, detail::Failure& failure) {
  std::array<std::uint8_t, protocol::kPairingHeaderSize> bytes{};
  if (!channel.read_exact(bytes, deadline, failure)) return std::nullopt;
  protocol::PairingHeader header;
  std::string why;
  if (protocol::parse_pairing_header(bytes, header, why)) {
    failure.set(errc::protocol_error, channel.peer() + " sent a " + why);
    return std::nullopt;
  }
  if (header.type != expected) {
    failure.set(errc::protocol_error, channel.peer() + " sent pairing packet type " +
                                          std::to_string(static_cast<int>(header.type)) +
                                          " where type " +
                                          std::to_string(static_cast<int>(expected)) + " belongs");
    return std::nullopt;
  }
  std::vector<std::uint8_t> payload(header.length);
  if (!channel.read_exact(payload, deadline, failure)) return std::nullopt;
  return payload;
}

}  // namespace

std::optional<protocol::PeerInfo> exchange(TlsChannel& channel, Spake2::Role role,
                                           std::string_view code, protocol::PeerInfoType type,
                                           std::string_view data, Deadline deadline,
                                           detail::Failure& failure) {
  std::vector<std::uint8_t> password(code.begin(), code.end());
  std::array<std::uint8_t, kExportedKeySize> exported{};
  if (!channel.export_keying_material(exported, kExportLabel, failure)) return std::nullopt;
  password.insert(password.end(), exported.begin(), exported.end());

  const bool alice = role == Spake2::Role::alice;
  Spake2 spake(role, alice ? kClientName : kServerName, alice ? kServerName : kClientName);
  Spake2::Message message{};
  if (!spake.generate(password, message)) {
    failure.set(errc::io_error, "cannot compute the SPAKE2 message (libsodium failed)");
    return std::nullopt;
  }
  if (!write_packet(channel, protocol::PairingPacketType::spake2_message, message, deadline,
                    failure)) {
    return std::nullopt;
  }
  auto theirs =
      read_packet(channel, protocol::PairingPacketType::spake2_message, deadline, failure);
  if (!theirs) return std::nullopt;
  if (theirs->size() != Spake2::kMessageSize) {
    failure.set(errc::protocol_error, channel.peer() + " sent a SPAKE2 message of " +
                                          std::to_string(theirs->size()) + " bytes (it has 32)");
    return std::nullopt;
  }
  auto key = spake.process(*theirs);
  if (!key) {
    failure.set(errc::protocol_error,
                channel.peer() + " sent a SPAKE2 message that is no usable curve point");
    return std::nullopt;
  }
  auto cipher = PairingCipher::create(*key);
  if (!cipher) {
    failure.set(errc::io_error, "cannot derive the pairing cipher key (OpenSSL's HKDF failed)");
    return std::nullopt;
  }

  std::vector<std::uint8_t> info;
  if (protocol::encode_peer_info(type, data, info)) {
    failure.set(errc::invalid_argument, "our PeerInfo does not fit its 8192 bytes");
    return std::nullopt;
  }
  std::vector<std::uint8_t> sealed = cipher->encrypt(info);
  if (sealed.empty()) {
    failure.set(errc::io_error, "cannot encrypt our PeerInfo (OpenSSL's AES-GCM failed)");
    return std::nullopt;
  }
  if (!write_packet(channel, protocol::PairingPacketType::peer_info, sealed, deadline, failure)) {
    return std::nullopt;
  }
  auto their_sealed =
      read_packet(channel, protocol::PairingPacketType::peer_info, deadline, failure);
  if (!their_sealed) return std::nullopt;
  std::vector<std::uint8_t> plain;
  if (!cipher->decrypt(*their_sealed, plain)) {
    failure.set(errc::unauthorized,
                "the pairing code is wrong: " + channel.peer() +
                    "'s answer does not decrypt with it (adb: \"Wrong password or connection "
                    "was dropped\")");
    return std::nullopt;
  }
  protocol::PeerInfo peer;
  std::string why;
  if (protocol::parse_peer_info(plain, peer, why)) {
    failure.set(errc::protocol_error, channel.peer() + " sent a " + why);
    return std::nullopt;
  }
  return peer;
}

}  // namespace adbwire::pairing
