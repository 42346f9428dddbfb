// Finding phones in Wireless debugging by multicast DNS, with no mDNS daemon and no adb: a phone
// advertises _adb-tls-pairing._tcp while its pairing dialog is open and _adb-tls-connect._tcp
// while Wireless debugging is on, each under an instance name that begins with its GUID
// ("adb-R5CT1234-AbCdEf"); `adb tcpip` ports appear as _adb._tcp. adbwire asks on every IPv4
// interface, loopback included, and also asks a running adb server (host:mdns:services), which
// may have heard a phone earlier.
//
// The querier shares UDP port 5353 with whatever else listens there (SO_REUSEADDR and
// SO_REUSEPORT), so it runs beside avahi-daemon or an adb server; where the port cannot be shared
// it asks from a port of its own (RFC 6762's one-shot queries, which responders answer by
// unicast). What the network sends is untrusted: datagrams are parsed by protocol/dns.hpp's
// bounded codec, at most kMaxMdnsServices services are kept, and names reach the terminal only
// through the caller (the CLI escapes them).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/server_address.hpp"

namespace adbwire {

inline constexpr std::string_view kAdbTlsConnectService = "_adb-tls-connect._tcp";
inline constexpr std::string_view kAdbTlsPairingService = "_adb-tls-pairing._tcp";
inline constexpr std::string_view kAdbService = "_adb._tcp";
// More are ignored until some expire: a network cannot make the querier hold more.
inline constexpr std::size_t kMaxMdnsServices = 256;

struct MdnsService {
  std::string instance;  // "adb-R5CT1234-AbCdEf" (any bytes a responder sent; escape to print)
  std::string service;   // "_adb-tls-connect._tcp"
  std::string host;      // IPv4 address, dotted
  std::uint16_t port = 0;
  // TXT strings ("v=1", "name=Pixel 8", "api=34"); empty when the phone sent none or a broken
  // one (TXT records are optional, and old adbd wrote them wrongly).
  std::vector<std::string> txt;
  bool from_adb_server = false;  // learned from an adb server's host:mdns:services

  std::string address() const { return host + ":" + std::to_string(port); }
  bool operator==(const MdnsService&) const = default;
};

struct MdnsOptions {
  // The service types asked for (and the only ones kept).
  std::vector<std::string> services{std::string(kAdbService), std::string(kAdbTlsPairingService),
                                    std::string(kAdbTlsConnectService)};
  // How long mdns_services() listens for answers.
  std::chrono::milliseconds listen{1000};
  // Also ask the adb server at adb_server (host:mdns:services); one that does not run, or has
  // no mDNS (adb before 30), is skipped quietly.
  bool ask_adb_server = true;
  ServerAddress adb_server;
};

// What discovery can use here (adbwire mdns check).
struct MdnsStatus {
  bool shared_port = false;  // listening on 5353 beside others, else one-shot queries only
  std::vector<std::string> interfaces;  // "lo 127.0.0.1", "eth0 192.168.1.5"
  std::string problem;                  // why the querier cannot run here ("" when it can)
  std::string adb_server;  // the adb server's own answer to host:mdns:check, "" when none
};

// The querier, for continuous use (a daemon keeping paired phones connected) as well as one-shot
// calls: its sockets stay open while it lives. Not thread safe: one thread uses it.
class MdnsBrowser {
 public:
  // Opens the sockets and asks once. Errors: not_supported (no IPv4 interface that can multicast,
  // or no socket could be opened: the detail says why), io_error.
  explicit MdnsBrowser(MdnsOptions options = {});
  MdnsBrowser(MdnsOptions options, std::error_code& error);
  ~MdnsBrowser();
  MdnsBrowser(MdnsBrowser&&) noexcept;
  MdnsBrowser& operator=(MdnsBrowser&&) noexcept;

  // Asks again on every interface (the caller spaces questions out: RFC 6762 §5.2 doubles the
  // interval each time, up to an hour).
  void query();
  // Reads answers until deadline; returns as soon as the services changed (true) or at the
  // deadline (false). Malformed datagrams are dropped. Never throws for what the network sends.
  bool poll(Deadline deadline);
  // The services heard and not yet expired (TTLs honoured, goodbyes applied), sorted by service
  // then instance. Does not ask the adb server.
  std::vector<MdnsService> services() const;
  // Calls on_change with the whole list each time it changes, re-asking at 1, 2, 4 … 60 s,
  // until on_change returns false, stop is requested or deadline passes (no error then).
  void watch(const std::function<bool(const std::vector<MdnsService>&)>& on_change,
             std::stop_token stop = {}, Deadline deadline = kNoDeadline);
  MdnsStatus status() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Listens options.listen, then adds what the adb server knows and this host did not hear
// (from_adb_server). Errors: not_supported when the querier cannot run here and no adb server
// answers either.
std::vector<MdnsService> mdns_services(const MdnsOptions& options = {});
std::vector<MdnsService> mdns_services(const MdnsOptions& options, std::error_code& error);

// The service of type `service` whose instance is `name` or begins with it (a GUID names its
// phone's instances: "adb-R5CT1234-AbCdEf" finds "adb-R5CT1234-AbCdEf (2)"). `name` may also be
// adb's full form, "INSTANCE._adb-tls-connect._tcp" (with ".local." or not), whose type then
// wins. Asks until deadline, and the adb server once. Errors: not_found (nothing answered by the
// deadline: the message says where to look), invalid_argument (an empty name).
MdnsService resolve_mdns_service(std::string_view service, std::string_view name, Deadline deadline,
                                 const MdnsOptions& options = {});
MdnsService resolve_mdns_service(std::string_view service, std::string_view name, Deadline deadline,
                                 const MdnsOptions& options, std::error_code& error);

// What discovery can use here; never fails (problems are in the status).
MdnsStatus mdns_check(const MdnsOptions& options = {});

}  // namespace adbwire
