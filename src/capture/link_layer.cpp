#include "capture/link_layer.hpp"

#include <algorithm>
#include <cstdio>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::capture_detail {

using protocol::load_be16;
using protocol::load_be32;
using protocol::load_le16;
using protocol::load_le32;
using protocol::load_u16;
using protocol::load_u32;

namespace {

constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86dd;
constexpr std::uint16_t kEtherVlan = 0x8100;
constexpr std::uint16_t kEtherQinQ = 0x88a8;
constexpr std::uint8_t kIpProtoTcp = 6;
constexpr std::uint8_t kUsbTransferBulk = 3;
constexpr std::uint8_t kUsbDirectionIn = 0x80;

Frame dissect_tcp(IpEndpoint source, IpEndpoint destination, std::span<const std::uint8_t> in,
                  std::uint32_t claimed_length) {
  Frame frame;
  if (in.size() < 20) return frame;
  const std::size_t header = (in[12] >> 4) * 4u;
  if (header < 20 || header > in.size() || header > claimed_length) return frame;
  frame.kind = Frame::Kind::tcp;
  source.port = load_be16(in.data());
  destination.port = load_be16(in.data() + 2);
  frame.tcp.source = source;
  frame.tcp.destination = destination;
  frame.tcp.sequence = load_be32(in.data() + 4);
  frame.tcp.flags = in[13];
  frame.tcp.payload_length = claimed_length - static_cast<std::uint32_t>(header);
  frame.tcp.payload =
      in.subspan(header, std::min<std::size_t>(in.size() - header, frame.tcp.payload_length));
  return frame;
}

Frame dissect_ipv4(std::span<const std::uint8_t> in) {
  if (in.size() < 20 || (in[0] >> 4) != 4) return {};
  const std::size_t header = (in[0] & 0x0f) * 4u;
  const std::uint16_t total = load_be16(in.data() + 2);
  if (header < 20 || header > in.size() || total < header) return {};
  const std::uint16_t fragment = load_be16(in.data() + 6);
  if ((fragment & 0x3fff) != 0 || in[9] != kIpProtoTcp) return {};  // fragments are not ADB-sized
  IpEndpoint source;
  IpEndpoint destination;
  std::copy_n(in.data() + 12, 4, source.address.begin());
  std::copy_n(in.data() + 16, 4, destination.address.begin());
  const std::size_t available = std::min<std::size_t>(in.size(), total);
  return dissect_tcp(source, destination, in.subspan(header, available - header),
                     static_cast<std::uint32_t>(total - header));
}

Frame dissect_ipv6(std::span<const std::uint8_t> in) {
  if (in.size() < 40 || (in[0] >> 4) != 6) return {};
  IpEndpoint source;
  IpEndpoint destination;
  source.v6 = destination.v6 = true;
  std::copy_n(in.data() + 8, 16, source.address.begin());
  std::copy_n(in.data() + 24, 16, destination.address.begin());
  std::uint32_t remaining = load_be16(in.data() + 4);
  std::uint8_t next = in[6];
  std::size_t pos = 40;
  // Hop-by-hop, routing and destination options may precede TCP; a fragment header ends it.
  while (next == 0 || next == 43 || next == 60) {
    if (pos + 8 > in.size()) return {};
    const std::size_t length = (in[pos + 1] + 1u) * 8u;
    if (length > remaining) return {};
    next = in[pos];
    pos += length;
    remaining -= static_cast<std::uint32_t>(length);
  }
  if (next != kIpProtoTcp || pos > in.size()) return {};
  const std::size_t available = std::min<std::size_t>(in.size() - pos, remaining);
  return dissect_tcp(source, destination, in.subspan(pos, available), remaining);
}

Frame dissect_ip(std::span<const std::uint8_t> in) {
  if (in.empty()) return {};
  return (in[0] >> 4) == 6 ? dissect_ipv6(in) : dissect_ipv4(in);
}

Frame dissect_ethertype(std::uint16_t type, std::span<const std::uint8_t> in) {
  if (type == kEtherIpv4) return dissect_ipv4(in);
  if (type == kEtherIpv6) return dissect_ipv6(in);
  return {};
}

Frame dissect_ethernet(std::span<const std::uint8_t> in) {
  if (in.size() < 14) return {};
  std::size_t pos = 12;
  std::uint16_t type = load_be16(in.data() + pos);
  while ((type == kEtherVlan || type == kEtherQinQ) && pos + 6 <= in.size()) {
    pos += 4;
    type = load_be16(in.data() + pos);
  }
  return dissect_ethertype(type, in.subspan(pos + 2));
}

// BSD loopback: the address family in the capturing host's byte order.
Frame dissect_null(std::span<const std::uint8_t> in, bool network_order) {
  if (in.size() < 4) return {};
  std::uint32_t family = network_order ? load_be32(in.data()) : load_le32(in.data());
  if (!network_order && family > 0xffff) family = load_be32(in.data());
  constexpr std::uint32_t kAfInet = 2;
  if (family == kAfInet) return dissect_ipv4(in.subspan(4));
  if (family == 10 || family == 24 || family == 28 || family == 30)
    return dissect_ipv6(in.subspan(4));
  return {};
}

// usbmon: struct mon_bin_hdr (48 bytes; 64 with the mmap fields), in host byte order.
Frame dissect_usbmon(std::span<const std::uint8_t> in, bool big_endian, std::size_t header) {
  if (in.size() < header) return {};
  const char event = static_cast<char>(in[8]);
  const std::uint8_t transfer = in[9];
  const std::uint8_t endpoint = in[10];
  const bool is_in = (endpoint & kUsbDirectionIn) != 0;
  const std::uint32_t captured = load_u32(in.data() + 36, big_endian);
  if (transfer != kUsbTransferBulk || captured == 0) return {};
  if (is_in ? event != 'C' : event != 'S') return {};
  Frame frame;
  frame.kind = Frame::Kind::usb;
  frame.usb.bus = load_u16(in.data() + 12, big_endian);
  frame.usb.device = in[11];
  frame.usb.endpoint = endpoint;
  frame.usb.data = in.subspan(header, std::min<std::size_t>(captured, in.size() - header));
  return frame;
}

// USBPcap: USBPCAP_BUFFER_PACKET_HEADER, little-endian; info bit 0 set on completions.
Frame dissect_usbpcap(std::span<const std::uint8_t> in) {
  if (in.size() < 27) return {};
  const std::uint16_t header = load_le16(in.data());
  if (header < 27 || header > in.size()) return {};
  const bool completion = (in[16] & 1) != 0;
  const std::uint8_t endpoint = in[21];
  const bool is_in = (endpoint & kUsbDirectionIn) != 0;
  if (in[22] != kUsbTransferBulk || is_in != completion) return {};
  const std::uint32_t length = load_le32(in.data() + 23);
  if (length == 0) return {};
  Frame frame;
  frame.kind = Frame::Kind::usb;
  frame.usb.bus = load_le16(in.data() + 17);
  frame.usb.device = load_le16(in.data() + 19);
  frame.usb.endpoint = endpoint;
  frame.usb.data = in.subspan(header, std::min<std::size_t>(length, in.size() - header));
  return frame;
}

}  // namespace

std::string to_string(const IpEndpoint& endpoint) {
  char text[64];
  if (!endpoint.v6) {
    std::snprintf(text, sizeof text, "%u.%u.%u.%u:%u", endpoint.address[0], endpoint.address[1],
                  endpoint.address[2], endpoint.address[3], endpoint.port);
    return text;
  }
  std::string out = "[";
  for (std::size_t i = 0; i < 16; i += 2) {
    if (i != 0) out += ':';
    std::snprintf(text, sizeof text, "%x", load_be16(endpoint.address.data() + i));
    out += text;
  }
  std::snprintf(text, sizeof text, "]:%u", endpoint.port);
  return out + text;
}

Frame dissect_frame(std::uint32_t link_type, bool big_endian, std::span<const std::uint8_t> data) {
  switch (link_type) {
    case kLinkEthernet:
      return dissect_ethernet(data);
    case kLinkLinuxSll:
      return data.size() < 16 ? Frame{}
                              : dissect_ethertype(load_be16(data.data() + 14), data.subspan(16));
    case kLinkLinuxSll2:
      return data.size() < 20 ? Frame{}
                              : dissect_ethertype(load_be16(data.data()), data.subspan(20));
    case kLinkNull:
      return dissect_null(data, false);
    case kLinkLoop:
      return dissect_null(data, true);
    case kLinkRaw:
    case kLinkRawBsd:
    case kLinkRawOpenBsd:
      return dissect_ip(data);
    case kLinkIpv4:
      return dissect_ipv4(data);
    case kLinkIpv6:
      return dissect_ipv6(data);
    case kLinkUsbLinux:
      return dissect_usbmon(data, big_endian, 48);
    case kLinkUsbLinuxMmapped:
      return dissect_usbmon(data, big_endian, 64);
    case kLinkUsbPcap:
      return dissect_usbpcap(data);
    default:
      return {};
  }
}

}  // namespace adbwire::capture_detail
