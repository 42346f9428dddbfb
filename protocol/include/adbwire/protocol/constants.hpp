// Wire constants of the ADB transport protocol, in one place.
// Values from AOSP packages/modules/adb adb.h, adb_auth.h and docs/dev/protocol.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace adbwire::protocol {

// Message commands: four ASCII letters read as a little-endian uint32.
inline constexpr std::uint32_t kCommandSync = 0x434e5953;  // "SYNC": obsolete, never sent
inline constexpr std::uint32_t kCommandCnxn = 0x4e584e43;  // "CNXN": (version, maxdata, banner)
inline constexpr std::uint32_t kCommandAuth = 0x48545541;  // "AUTH": (type, 0, data)
inline constexpr std::uint32_t kCommandOpen = 0x4e45504f;  // "OPEN": (local, window, service)
inline constexpr std::uint32_t kCommandOkay = 0x59414b4f;  // "OKAY": (local, remote, ""|int32)
inline constexpr std::uint32_t kCommandClse = 0x45534c43;  // "CLSE": (local|0, remote, "")
inline constexpr std::uint32_t kCommandWrte = 0x45545257;  // "WRTE": (local, remote, data)
inline constexpr std::uint32_t kCommandStls = 0x534c5453;  // "STLS": (version, 0, "")

// Protocol versions sent in CNXN arg0; the connection uses min(ours, peer's).
inline constexpr std::uint32_t kVersionMin = 0x01000000;
inline constexpr std::uint32_t kVersionSkipChecksum = 0x01000001;  // data_check sent as 0
inline constexpr std::uint32_t kVersion = 0x01000001;
inline constexpr std::uint32_t kStlsVersion = 0x01000000;

// Payload limits. CNXN and AUTH payloads never exceed kMaxPayloadV1: the peer may be old.
inline constexpr std::uint32_t kMaxPayloadV1 = 4 * 1024;
inline constexpr std::uint32_t kMaxPayloadV2 = 256 * 1024;
inline constexpr std::uint32_t kMaxPayload = 1024 * 1024;

inline constexpr std::size_t kHeaderSize = 24;

// AUTH message types (arg0) and the token size adbd sends.
inline constexpr std::uint32_t kAuthToken = 1;
inline constexpr std::uint32_t kAuthSignature = 2;
inline constexpr std::uint32_t kAuthRsaPublicKey = 3;
inline constexpr std::size_t kAuthTokenSize = 20;

// Receive window adbd grants when delayed_ack is negotiated.
inline constexpr std::uint32_t kInitialDelayedAckBytes = 32 * 1024 * 1024;

inline constexpr std::uint16_t kDefaultDevicePort = 5555;
inline constexpr std::uint16_t kDefaultServerPort = 5037;

// "CNXN", "WRTE", … for a known command; "????" otherwise. For logs and error messages.
std::string_view command_name(std::uint32_t command) noexcept;

}  // namespace adbwire::protocol
