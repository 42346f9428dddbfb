// UDP sockets for multicast DNS on IPv4: the interfaces it runs on (loopback included, which
// libavahi-core skips), a socket sharing port 5353 with every other mDNS stack on the host, a
// socket of its own port for one-shot queries, and reading datagrams with the interface they came
// in on. Used by the querier (browser.cpp) and the virtual device's responder. Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adbwire/deadline.hpp"

namespace adbwire::mdns {

inline constexpr std::uint16_t kMdnsPort = 5353;
inline constexpr std::uint32_t kMdnsGroup = 0xE00000FB;  // 224.0.0.251, host order

struct Interface {
  std::string name;  // "lo", "eth0"
  unsigned index = 0;
  std::uint32_t address = 0;  // host order
};

// IPv4 interfaces that are up and can multicast, loopback included, one per index.
std::vector<Interface> multicast_interfaces();
// "192.168.1.20" for a host-order address.
std::string dotted(std::uint32_t address);
// The host-order address of dotted text; nullopt for anything else.
std::optional<std::uint32_t> parse_ipv4(const std::string& text);

struct Datagram {
  std::size_t size = 0;
  std::uint32_t source = 0;  // host order
  std::uint16_t port = 0;
  unsigned interface = 0;  // the index it arrived on (0 when unknown)
};

// One non-blocking, close-on-exec UDP socket. Move-only; closes on destruction.
class UdpSocket {
 public:
  UdpSocket() = default;
  ~UdpSocket();
  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&& other) noexcept;

  // Port 5353 shared (SO_REUSEADDR, SO_REUSEPORT) with the group joined on each interface.
  // Invalid with why set when the port cannot be shared or no interface could join.
  static UdpSocket open_shared(const std::vector<Interface>& interfaces, std::string& why);
  // A port of its own, for one-shot queries whose answers come back by unicast.
  static UdpSocket open_ephemeral(std::string& why);

  bool valid() const noexcept { return fd_ >= 0; }
  int fd() const noexcept { return fd_; }
  // To 224.0.0.251:5353 out of `interface`. False when the send failed (the interface went down).
  bool send_multicast(std::span<const std::uint8_t> bytes, const Interface& interface);
  // To address:port (host order), unicast.
  bool send_to(std::span<const std::uint8_t> bytes, std::uint32_t address, std::uint16_t port);
  // The next datagram waiting, nullopt when none. A datagram larger than buffer is cut, and
  // then fails to parse.
  std::optional<Datagram> receive(std::span<std::uint8_t> buffer);

 private:
  explicit UdpSocket(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Waits until one of fds (negative ones ignored) can be read, or the deadline; the readable
// ones are flagged in ready (same order). False at the deadline (or on EINTR).
bool wait_readable(std::span<const int> fds, Deadline deadline, std::vector<bool>& ready);

}  // namespace adbwire::mdns
