// What the querier has heard, as services: PTR records name instances of the service types
// asked for, SRV records give their port and host, A records the host's address (else the
// address the SRV came from), TXT records their attributes. Records expire with their TTL; a
// TTL of 0 (a goodbye) removes one at once. Sans-IO: the browser feeds it parsed datagrams and
// the time. Internal.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "adbwire/mdns.hpp"
#include "adbwire/protocol/dns.hpp"

namespace adbwire::mdns {

class ServiceTable {
 public:
  using Time = std::chrono::steady_clock::time_point;

  // service_types: "_adb-tls-connect._tcp" …; others are ignored.
  explicit ServiceTable(const std::vector<std::string>& service_types);

  // Takes the answers and additional records of a response sent from source (host order).
  // Records beyond kMaxMdnsServices of a kind are dropped.
  void add(const protocol::DnsMessage& response, std::uint32_t source, Time now);

  // The resolved services (a PTR and an SRV, not expired), by service then instance.
  std::vector<MdnsService> services(Time now) const;

  // A query asking for every service type (QU bit set when unicast_response).
  protocol::DnsMessage question(bool unicast_response) const;

 private:
  struct Instance {
    std::string instance;
    std::string service;
    Time until;
  };
  struct Srv {
    std::string host;  // the key of its host's A record
    std::uint16_t port = 0;
    std::uint32_t source = 0;
    Time until;
  };
  struct Txt {
    std::vector<std::string> strings;
    Time until;
  };
  struct Address {
    std::uint32_t address = 0;
    Time until;
  };

  void take(const protocol::DnsRecord& record, std::uint32_t source, Time now);

  std::vector<protocol::DnsName> types_;       // "_adb-tls-connect", "_tcp", "local"
  std::map<std::string, Instance> instances_;  // keyed by the lower-case full instance name
  std::map<std::string, Srv> srv_;
  std::map<std::string, Txt> txt_;
  std::map<std::string, Address> addresses_;
};

}  // namespace adbwire::mdns
