#include "vdevice/pairing_service.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "adbwire/protocol/pairing.hpp"
#include "auth/key_factory.hpp"
#include "pairing/exchange.hpp"
#include "pairing/pairing_tls.hpp"
#include "vdevice/auth_keys.hpp"

namespace adbwire::vdevice {
namespace {

constexpr auto kConnectionTimeout = std::chrono::seconds(30);
// adbd's pairing server takes at most this many attempts, then closes the port.
constexpr std::size_t kMaxAttempts = 20;

// host:port of a connected socket's peer, for the log.
std::string peer_name(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
    return std::string(text) + ":" + std::to_string(port);
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
  inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
  port = ntohs(v6.sin6_port);
  return "[" + std::string(text) + "]:" + std::to_string(port);
}

}  // namespace

std::unique_ptr<PairingService> PairingService::start(Options options, detail::Failure& failure) {
  std::unique_ptr<PairingService> service(new PairingService(std::move(options)));
  service->set_code(service->options_.code);
  sockaddr_storage address{};
  socklen_t length = 0;
  auto& v4 = reinterpret_cast<sockaddr_in&>(address);
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address);
  if (inet_pton(AF_INET, service->options_.address.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(service->options_.port);
    length = sizeof v4;
  } else if (inet_pton(AF_INET6, service->options_.address.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(service->options_.port);
    length = sizeof v6;
  } else {
    failure.set(errc::invalid_argument, "bad pairing address " + service->options_.address);
    return nullptr;
  }
  int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int on = 1;
  if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || ::listen(fd, 16) != 0 ||
      ::pipe2(service->wake_, O_CLOEXEC) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    failure.set(err == EADDRINUSE ? errc::busy : errc::io_error,
                "cannot listen for pairing: " + std::string(std::strerror(err)));
    return nullptr;
  }
  service->listener_ = fd;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  service->port_ = ntohs(address.ss_family == AF_INET ? v4.sin_port : v6.sin6_port);
  service->acceptor_ = std::thread([raw = service.get()] { raw->accept_loop(); });
  return service;
}

PairingService::~PairingService() {
  stopping_ = true;
  if (wake_[1] >= 0) {
    const char byte = 0;
    [[maybe_unused]] const auto written = ::write(wake_[1], &byte, 1);
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    detail::MutexLock lock(mutex_);
    for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& worker : workers) worker.join();
  for (int fd : {listener_, wake_[0], wake_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void PairingService::set_code(std::string code) {
  detail::MutexLock lock(mutex_);
  code_ = std::move(code);
}

std::string PairingService::code() const {
  detail::MutexLock lock(mutex_);
  return code_;
}

void PairingService::accept_loop() {
  while (!stopping_) {
    std::array<pollfd, 2> entries{{{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}}};
    if (::poll(entries.data(), entries.size(), -1) < 0 && errno != EINTR) return;
    if (stopping_ || entries[1].revents != 0) return;
    if ((entries[0].revents & POLLIN) == 0) continue;
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    const int fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC);
    if (fd < 0) continue;
    detail::MutexLock lock(mutex_);
    if (workers_.size() == kMaxAttempts) {
      ::close(fd);
      continue;
    }
    int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    open_.insert(fd);
    // The channel gets a duplicate, so fd (and its number) stays ours until it leaves open_.
    workers_.emplace_back([this, fd, name = peer_name(peer)] {
      const int channel_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (channel_fd >= 0 && options_.fault == PairingFault::none) {
        serve(channel_fd, name);
      } else if (channel_fd >= 0) {
        misbehave(channel_fd, name);
      }
      detail::MutexLock done(mutex_);
      open_.erase(fd);
      ::close(fd);
    });
  }
}

void PairingService::serve(int fd, std::string peer) {
  detail::Failure failure;
  auth::Status status;
  std::optional<PrivateKey> key = auth::KeyFactory::generate(status);
  if (!key) {
    std::cerr << "vdevice: pairing with " << peer << ": no device key: " << status.detail << "\n";
    ::close(fd);
    return;
  }
  const Deadline deadline = deadline_after(kConnectionTimeout);
  auto channel = pairing::open_channel(fd, peer, pairing::TlsSide::server,
                                       auth::KeyFactory::evp_key(*key), failure);
  std::optional<protocol::PeerInfo> host;
  if (channel && channel->handshake(deadline, failure)) {
    host = pairing::exchange(*channel, pairing::Spake2::Role::bob, code(),
                             protocol::PeerInfoType::device_guid, options_.guid, deadline, failure);
  }
  if (host && host->type != static_cast<std::uint8_t>(protocol::PeerInfoType::rsa_public_key)) {
    failure.set(errc::protocol_error, "PeerInfo type " + std::to_string(host->type));
    host.reset();
  }
  if (!host) {
    std::cerr << "vdevice: pairing with " << peer << " failed: " << failure.detail << "\n";
    return;
  }
  if (!AuthorizedKeys(options_.keys_file, true).offer(host->data)) {
    std::cerr << "vdevice: pairing with " << peer << ": its key was not stored\n";
    return;
  }
  ++paired_;
}

// The pairing faults: TLS as usual, then a stall or a broken first header, and the connection
// held open until the host gives up (or the service stops).
void PairingService::misbehave(int fd, std::string peer) {
  detail::Failure failure;
  auth::Status status;
  std::optional<PrivateKey> key = auth::KeyFactory::generate(status);
  if (!key) {
    ::close(fd);
    return;
  }
  const Deadline deadline = deadline_after(kConnectionTimeout);
  auto channel = pairing::open_channel(fd, peer, pairing::TlsSide::server,
                                       auth::KeyFactory::evp_key(*key), failure);
  if (!channel || !channel->handshake(deadline, failure)) return;
  std::array<std::uint8_t, protocol::kPairingHeaderSize> header =
      protocol::encode_pairing_header(protocol::PairingPacketType::spake2_message, 32);
  if (options_.fault == PairingFault::bad_version) header[0] = 2;
  if (options_.fault == PairingFault::oversized_frame) {
    header = protocol::encode_pairing_header(protocol::PairingPacketType::spake2_message,
                                             protocol::kMaxPairingPayload + 1);
  }
  if (options_.fault != PairingFault::stall) {
    std::vector<std::uint8_t> packet(header.begin(), header.end());
    packet.resize(packet.size() + 32, 0x5a);
    if (!channel->write(packet, deadline, failure)) return;
  }
  std::array<std::uint8_t, 1> sink{};
  while (channel->read_exact(sink, deadline, failure)) {
  }
}

}  // namespace adbwire::vdevice
