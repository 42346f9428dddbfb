// From one captured frame to what ADB rides on: a TCP segment or a USB bulk transfer.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <string>

namespace adbwire::capture_detail {

// Link-layer header types (tcpdump.org LINKTYPE_* values) this reader understands.
inline constexpr std::uint32_t kLinkNull = 0;
inline constexpr std::uint32_t kLinkEthernet = 1;
inline constexpr std::uint32_t kLinkRawBsd = 12;
inline constexpr std::uint32_t kLinkRawOpenBsd = 14;
inline constexpr std::uint32_t kLinkRaw = 101;
inline constexpr std::uint32_t kLinkLoop = 108;
inline constexpr std::uint32_t kLinkLinuxSll = 113;
inline constexpr std::uint32_t kLinkUsbLinux = 189;
inline constexpr std::uint32_t kLinkUsbLinuxMmapped = 220;
inline constexpr std::uint32_t kLinkIpv4 = 228;
inline constexpr std::uint32_t kLinkIpv6 = 229;
inline constexpr std::uint32_t kLinkUsbPcap = 249;
inline constexpr std::uint32_t kLinkLinuxSll2 = 276;

struct IpEndpoint {
  std::array<std::uint8_t, 16> address{};  // IPv4 in the first four bytes
  bool v6 = false;
  std::uint16_t port = 0;
  auto operator<=>(const IpEndpoint&) const = default;
};

// "10.0.0.1:40001" or "[::1]:5555".
std::string to_string(const IpEndpoint& endpoint);

inline constexpr std::uint8_t kTcpFin = 0x01;
inline constexpr std::uint8_t kTcpSyn = 0x02;
inline constexpr std::uint8_t kTcpAck = 0x10;

struct TcpSegment {
  IpEndpoint source;
  IpEndpoint destination;
  std::uint32_t sequence = 0;
  std::uint8_t flags = 0;
  std::uint32_t payload_length = 0;  // as the IP header says; payload may hold fewer (snap length)
  std::span<const std::uint8_t> payload;
};

struct UsbTransfer {
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint8_t endpoint = 0;  // with the direction bit 0x80 (IN)
  std::span<const std::uint8_t> data;
};

struct Frame {
  enum class Kind { other, tcp, usb };
  Kind kind = Kind::other;
  TcpSegment tcp;
  UsbTransfer usb;
};

// Decodes link, network and transport headers. Anything that is not TCP or a USB bulk
// transfer carrying data (in the direction ADB data flows) is Kind::other. big_endian is the
// capture section's byte order, which usbmon headers follow. Views point into data.
Frame dissect_frame(std::uint32_t link_type, bool big_endian, std::span<const std::uint8_t> data);

}  // namespace adbwire::capture_detail
