#include "mdns/multicast.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace adbwire::mdns {
namespace {

sockaddr_in socket_address(std::uint32_t address, std::uint16_t port) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_addr.s_addr = htonl(address);
  out.sin_port = htons(port);
  return out;
}

bool set_int(int fd, int level, int name, int value) {
  return ::setsockopt(fd, level, name, &value, sizeof value) == 0;
}

int udp_socket(std::string& why) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = std::string("cannot open a UDP socket: ") + std::strerror(errno);
    return -1;
  }
  // RFC 6762 §11: mDNS is sent with TTL 255; our own datagrams loop back so a responder on this
  // host (the virtual device, a phone emulator) hears them.
  set_int(fd, IPPROTO_IP, IP_MULTICAST_TTL, 255);
  set_int(fd, IPPROTO_IP, IP_MULTICAST_LOOP, 1);
  set_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
  return fd;
}

}  // namespace

std::vector<Interface> multicast_interfaces() {
  std::vector<Interface> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    const unsigned flags = entry->ifa_flags;
    if ((flags & IFF_UP) == 0 || (flags & (IFF_MULTICAST | IFF_LOOPBACK)) == 0) continue;
    const unsigned index = ::if_nametoindex(entry->ifa_name);
    if (index == 0 ||
        std::any_of(out.begin(), out.end(), [&](const Interface& i) { return i.index == index; })) {
      continue;
    }
    const auto* in = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
    out.push_back({entry->ifa_name, index, ntohl(in->sin_addr.s_addr)});
  }
  ::freeifaddrs(list);
  return out;
}

std::string dotted(std::uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xFF) + "." +
         std::to_string((address >> 8) & 0xFF) + "." + std::to_string(address & 0xFF);
}

std::optional<std::uint32_t> parse_ipv4(const std::string& text) {
  in_addr out{};
  if (::inet_pton(AF_INET, text.c_str(), &out) != 1) return std::nullopt;
  return ntohl(out.s_addr);
}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) ::close(fd_);
}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

UdpSocket& UdpSocket::operator=(UdpSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

UdpSocket UdpSocket::open_shared(const std::vector<Interface>& interfaces, std::string& why) {
  UdpSocket socket(udp_socket(why));
  if (!socket.valid()) return socket;
  set_int(socket.fd_, SOL_SOCKET, SO_REUSEADDR, 1);
  set_int(socket.fd_, SOL_SOCKET, SO_REUSEPORT, 1);
  const sockaddr_in any = socket_address(INADDR_ANY, kMdnsPort);
  if (::bind(socket.fd_, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0) {
    why = std::string("port 5353 cannot be shared (") + std::strerror(errno) +
          "): another mDNS stack holds it alone";
    return {};
  }
  std::size_t joined = 0;
  for (const Interface& interface : interfaces) {
    ip_mreqn request{};
    request.imr_multiaddr.s_addr = htonl(kMdnsGroup);
    request.imr_ifindex = static_cast<int>(interface.index);
    if (::setsockopt(socket.fd_, IPPROTO_IP, IP_ADD_MEMBERSHIP, &request, sizeof request) == 0 ||
        errno == EADDRINUSE) {
      ++joined;
    }
  }
  if (joined == 0) {
    why = "no interface could join the mDNS group 224.0.0.251";
    return {};
  }
  return socket;
}

UdpSocket UdpSocket::open_ephemeral(std::string& why) {
  UdpSocket socket(udp_socket(why));
  if (!socket.valid()) return socket;
  const sockaddr_in any = socket_address(INADDR_ANY, 0);
  if (::bind(socket.fd_, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0) {
    why = std::string("cannot bind a UDP port: ") + std::strerror(errno);
    return {};
  }
  return socket;
}

bool UdpSocket::send_multicast(std::span<const std::uint8_t> bytes, const Interface& interface) {
  // The interface's own address as source too: left to the kernel, a datagram out of loopback
  // takes another interface's address (224.0.0.251 is link-scope, 127.0.0.1 host-scope).
  ip_mreqn out_of{};
  out_of.imr_ifindex = static_cast<int>(interface.index);
  out_of.imr_address.s_addr = htonl(interface.address);
  if (::setsockopt(fd_, IPPROTO_IP, IP_MULTICAST_IF, &out_of, sizeof out_of) != 0) return false;
  return send_to(bytes, kMdnsGroup, kMdnsPort);
}

bool UdpSocket::send_to(std::span<const std::uint8_t> bytes, std::uint32_t address,
                        std::uint16_t port) {
  const sockaddr_in to = socket_address(address, port);
  return ::sendto(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL,
                  reinterpret_cast<const sockaddr*>(&to),
                  sizeof to) == static_cast<ssize_t>(bytes.size());
}

std::optional<Datagram> UdpSocket::receive(std::span<std::uint8_t> buffer) {
  sockaddr_in from{};
  iovec data{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(in_pktinfo))];
  msghdr message{};
  message.msg_name = &from;
  message.msg_namelen = sizeof from;
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd_, &message, 0);
  if (n < 0) return std::nullopt;
  Datagram out;
  out.size = static_cast<std::size_t>(n);
  out.source = ntohl(from.sin_addr.s_addr);
  out.port = ntohs(from.sin_port);
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      in_pktinfo info{};
      std::memcpy(&info, CMSG_DATA(c), sizeof info);
      out.interface = static_cast<unsigned>(info.ipi_ifindex);
    }
  }
  return out;
}

bool wait_readable(std::span<const int> fds, Deadline deadline, std::vector<bool>& ready) {
  std::vector<pollfd> polls;
  for (const int fd : fds) polls.push_back({fd, POLLIN, 0});
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  const int wait = deadline == kNoDeadline
                       ? -1
                       : static_cast<int>(std::clamp<long long>(left.count(), 0, 60000));
  const int n = ::poll(polls.data(), polls.size(), wait);
  ready.assign(fds.size(), false);
  if (n <= 0) return false;
  for (std::size_t i = 0; i < polls.size(); ++i) ready[i] = (polls[i].revents & POLLIN) != 0;
  return true;
}

}  // namespace adbwire::mdns
