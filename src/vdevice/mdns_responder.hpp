// The virtual device's multicast DNS responder, as a phone's (mDNSResponder, or Android 13+'s
// MdnsAdvertiser): it advertises Wireless debugging's services under instance names beginning
// with the GUID, announces them at start and says goodbye (TTL 0) at stop, answers PTR, SRV, TXT,
// A and ANY questions by multicast, and one-shot queries (from a port other than 5353) by unicast
// to the asker, echoing its id and questions (RFC 6762 §6.7). TXT records are as adbd writes them
// (v, name, api), or missing, or broken (a string without its length byte), so hosts' handling
// of old phones is tested. One thread; a malformed datagram is dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/protocol/dns.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "mdns/multicast.hpp"

namespace adbwire::vdevice {

class MdnsResponder {
 public:
  struct Service {
    std::string type;      // "_adb-tls-connect._tcp"
    std::string instance;  // "adb-R5CT1234-AbCdEf"
    std::uint16_t port = 0;
  };
  struct Options {
    std::string address;    // the device's IPv4 address; 0.0.0.0: every interface's own
    std::string host_name;  // one label, ".local" is added
    std::vector<Service> services;
    MdnsTxt txt = MdnsTxt::normal;
    std::vector<std::string> txt_strings;  // for MdnsTxt::normal
  };

  // Shares port 5353 and announces. nullptr with failure set: not_supported (an IPv6 address, no
  // interface of that address), busy (5353 cannot be shared), io_error.
  static std::unique_ptr<MdnsResponder> start(Options options, detail::Failure& failure);

  // Says goodbye, ends the thread.
  ~MdnsResponder();
  MdnsResponder(const MdnsResponder&) = delete;
  MdnsResponder& operator=(const MdnsResponder&) = delete;

  // Renames the instance of `type` (a QR code asked for its own pairing name): a goodbye for the
  // old name, then the new one announced. Thread safe.
  void rename(const std::string& type, const std::string& instance);

 private:
  explicit MdnsResponder(Options options) : options_(std::move(options)) {}
  void run();
  void answer(std::span<const std::uint8_t> query, const mdns::Datagram& from);
  // Announces every service on every interface served (ttl_scale 0: goodbye).
  void announce(const std::vector<Service>& services, bool goodbye);
  std::vector<std::uint8_t> response(const std::vector<Service>& services,
                                     const protocol::DnsMessage& query, std::uint32_t address,
                                     bool legacy, bool goodbye) const;

  const Options options_;
  std::uint32_t address_ = 0;  // 0: the arrival interface's
  std::vector<mdns::Interface> served_;
  mdns::UdpSocket socket_;
  int wake_[2] = {-1, -1};
  mutable detail::Mutex mutex_;
  std::vector<Service> services_ ADBWIRE_GUARDED_BY(mutex_);
  std::thread thread_;
};

}  // namespace adbwire::vdevice
