// The querier (MdnsBrowser) and the one-shot calls of adbwire/mdns.hpp built on it, with the
// adb server's host:mdns:services as the second source.
#include <algorithm>
#include <random>
#include <thread>

#include "adbwire/adb_server.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/mdns.hpp"
#include "adbwire/protocol/dns.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/failure.hpp"
#include "base/port.hpp"
#include "mdns/multicast.hpp"
#include "mdns/service_table.hpp"

namespace adbwire {

using detail::Failure;

struct MdnsBrowser::Impl {
  explicit Impl(MdnsOptions given) : options(std::move(given)), table(options.services) {}

  bool open(Failure& failure) {
    interfaces = mdns::multicast_interfaces();
    for (const mdns::Interface& interface : interfaces)
      status.interfaces.push_back(interface.name + " " + mdns::dotted(interface.address));
    if (interfaces.empty()) {
      status.problem = "no IPv4 interface that is up can multicast";
      failure.set(errc::not_supported, "mDNS discovery cannot run here: " + status.problem);
      return false;
    }
    std::string shared_why;
    shared = mdns::UdpSocket::open_shared(interfaces, shared_why);
    status.shared_port = shared.valid();
    std::string own_why;
    oneshot = mdns::UdpSocket::open_ephemeral(own_why);
    if (!shared.valid() && !oneshot.valid()) {
      status.problem = shared_why + "; " + own_why;
      failure.set(errc::not_supported, "mDNS discovery cannot run here: " + status.problem);
      return false;
    }
    return true;
  }

  void query() {
    std::vector<std::uint8_t> bytes;
    if (shared.valid() && !protocol::encode_dns_message(table.question(false), bytes)) {
      for (const mdns::Interface& interface : interfaces) shared.send_multicast(bytes, interface);
    }
    // One-shot queries (RFC 6762 §5.1): sent from a port other than 5353, they are answered by
    // unicast to that port, whoever holds 5353 here.
    protocol::DnsMessage question = table.question(true);
    question.id = static_cast<std::uint16_t>(rng());
    if (oneshot.valid() && !protocol::encode_dns_message(question, bytes)) {
      for (const mdns::Interface& interface : interfaces) oneshot.send_multicast(bytes, interface);
    }
  }

  void drain(mdns::UdpSocket& socket, bool shared_port) {
    std::vector<std::uint8_t> buffer(protocol::kMaxDnsMessage);
    while (auto datagram = socket.receive(buffer)) {
      // RFC 6762 §6: responses come from port 5353; one-shot answers come to our own port.
      if (shared_port && datagram->port != mdns::kMdnsPort) continue;
      protocol::DnsMessage message;
      std::string why;
      if (protocol::parse_dns_message(std::span(buffer).first(datagram->size), message, why) ||
          !message.is_response()) {
        continue;
      }
      table.add(message, datagram->source, Clock::now());
    }
  }

  bool poll(Deadline deadline) {
    const std::vector<MdnsService> before = table.services(Clock::now());
    const int fds[] = {shared.fd(), oneshot.fd()};
    std::vector<bool> ready;
    for (;;) {
      const bool any = mdns::wait_readable(fds, deadline, ready);
      // One-shot answers first: they answer our own questions, so whatever waits beside them on
      // the shared port (a goodbye) came later and must be applied after them.
      if (any) {
        if (ready[1]) drain(oneshot, false);
        if (ready[0]) drain(shared, true);
      }
      if (table.services(Clock::now()) != before) return true;
      if (Clock::now() >= deadline) return false;
    }
  }

  MdnsOptions options;
  std::vector<mdns::Interface> interfaces;
  mdns::UdpSocket shared;
  mdns::UdpSocket oneshot;
  mdns::ServiceTable table;
  MdnsStatus status;
  std::minstd_rand rng{std::random_device{}()};
};

MdnsBrowser::MdnsBrowser(MdnsOptions options) {
  detail::or_throw([&](Failure& failure) {
    auto impl = std::make_unique<Impl>(std::move(options));
    if (!impl->open(failure)) return;
    impl->query();
    impl_ = std::move(impl);
  });
}

MdnsBrowser::MdnsBrowser(MdnsOptions options, std::error_code& error) {
  detail::or_code(error, [&](Failure& failure) {
    auto impl = std::make_unique<Impl>(std::move(options));
    if (!impl->open(failure)) return;
    impl->query();
    impl_ = std::move(impl);
  });
}

MdnsBrowser::~MdnsBrowser() = default;
MdnsBrowser::MdnsBrowser(MdnsBrowser&&) noexcept = default;
MdnsBrowser& MdnsBrowser::operator=(MdnsBrowser&&) noexcept = default;

void MdnsBrowser::query() {
  if (impl_) impl_->query();
}

bool MdnsBrowser::poll(Deadline deadline) {
  if (!impl_) {
    std::this_thread::sleep_until(std::min(deadline, Clock::now() + std::chrono::seconds(1)));
    return false;
  }
  return impl_->poll(deadline);
}

std::vector<MdnsService> MdnsBrowser::services() const {
  return impl_ ? impl_->table.services(Clock::now()) : std::vector<MdnsService>{};
}

MdnsStatus MdnsBrowser::status() const { return impl_ ? impl_->status : MdnsStatus{}; }

void MdnsBrowser::watch(const std::function<bool(const std::vector<MdnsService>&)>& on_change,
                        std::stop_token stop, Deadline deadline) {
  auto interval = std::chrono::seconds(1);
  Deadline next_query = Clock::now() + interval;
  while (!stop.stop_requested() && Clock::now() < deadline) {
    // Short slices, so a stop request is seen within a second.
    const Deadline slice = std::min({deadline, next_query, Clock::now() + std::chrono::seconds(1)});
    if (poll(slice) && !on_change(services())) return;
    if (Clock::now() >= next_query) {
      query();
      interval = std::min<std::chrono::seconds>(interval * 2, std::chrono::seconds(60));
      next_query = Clock::now() + interval;
    }
  }
}

namespace {

// host:mdns:services as services; empty when no server answers (or it has no mDNS).
std::vector<MdnsService> ask_server(const MdnsOptions& options, Deadline deadline) {
  std::vector<MdnsService> out;
  if (!options.ask_adb_server) return out;
  std::error_code error;
  const AdbServer server(options.adb_server, std::chrono::seconds(2), error);
  if (error) return out;
  const auto entries = server.mdns_services(deadline, error);
  if (error) return out;
  for (const protocol::MdnsServiceEntry& entry : entries) {
    if (std::find(options.services.begin(), options.services.end(), entry.service) ==
        options.services.end()) {
      continue;
    }
    const auto colon = entry.address.rfind(':');
    const auto port = detail::parse_port(std::string_view(entry.address).substr(colon + 1));
    if (!port) continue;
    MdnsService service;
    service.instance = entry.instance;
    service.service = entry.service;
    service.host = entry.address.substr(0, colon);
    service.port = *port;
    service.from_adb_server = true;
    out.push_back(std::move(service));
    if (out.size() >= kMaxMdnsServices) break;
  }
  return out;
}

// Adds what the server knows and we did not hear.
void merge(std::vector<MdnsService>& heard, const std::vector<MdnsService>& from_server) {
  for (const MdnsService& service : from_server) {
    const bool known = std::any_of(heard.begin(), heard.end(), [&](const MdnsService& h) {
      return h.instance == service.instance && h.service == service.service;
    });
    if (!known) heard.push_back(service);
  }
}

std::vector<MdnsService> services_of(const MdnsOptions& options, Failure& failure) {
  std::error_code error;
  MdnsBrowser browser(options, error);
  Failure unavailable;
  if (error) unavailable = detail::reported(error);
  const Deadline end = deadline_after(options.listen);
  if (!error) {
    // A second question halfway, for a datagram lost on a busy network.
    browser.poll(Clock::now() + options.listen / 2);
    browser.query();
    while (Clock::now() < end) browser.poll(end);
  }
  std::vector<MdnsService> services = browser.services();
  const std::vector<MdnsService> from_server =
      ask_server(options, deadline_after(std::chrono::seconds(2)));
  if (unavailable && from_server.empty()) {
    failure = std::move(unavailable);
    if (options.ask_adb_server) failure.detail += ", and no adb server with mDNS answers";
    return {};
  }
  merge(services, from_server);
  return services;
}

bool ascii_iequal_prefix(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

// The match for name among services: the exact instance first, else the first it begins.
const MdnsService* pick(const std::vector<MdnsService>& services, std::string_view service,
                        std::string_view name) {
  const MdnsService* prefix = nullptr;
  for (const MdnsService& s : services) {
    if (s.service != service || !ascii_iequal_prefix(s.instance, name)) continue;
    if (s.instance.size() == name.size()) return &s;
    if (prefix == nullptr) prefix = &s;
  }
  return prefix;
}

// pick returns a pointer into services: never a temporary's.
const MdnsService* pick(std::vector<MdnsService>&&, std::string_view, std::string_view) = delete;

// adb's INSTANCE.SERVICE[.local[.]] form: the instance and the type it names.
void split_full_name(std::string_view& name, std::string& service) {
  if (name.ends_with('.')) name.remove_suffix(1);
  if (name.ends_with(".local")) name.remove_suffix(6);
  for (const std::string_view protocol : {"._tcp", "._udp"}) {
    if (!name.ends_with(protocol)) continue;
    const std::string_view rest = name.substr(0, name.size() - protocol.size());
    const auto dot = rest.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return;
    service = std::string(rest.substr(dot + 1)) + std::string(protocol);
    name = rest.substr(0, dot);
    return;
  }
}

MdnsService resolve(std::string_view service_type, std::string_view name, Deadline deadline,
                    const MdnsOptions& given, Failure& failure) {
  std::string service(service_type);
  split_full_name(name, service);
  if (name.empty()) {
    failure.set(errc::invalid_argument, "no mDNS instance name given");
    return {};
  }
  MdnsOptions options = given;
  options.services = {service};
  std::error_code error;
  MdnsBrowser browser(options, error);
  const std::string why = error ? last_error_detail() : std::string();
  bool asked_server = false;
  auto interval = std::chrono::milliseconds(1000);
  Deadline next_query = Clock::now() + interval;
  const Deadline ask_server_at = Clock::now() + std::chrono::milliseconds(1500);
  for (;;) {
    const std::vector<MdnsService> heard = browser.services();
    if (const MdnsService* found = pick(heard, service, name)) return *found;
    if (!asked_server && (error || Clock::now() >= ask_server_at)) {
      asked_server = true;
      const auto from_server =
          ask_server(options, std::min(deadline, deadline_after(std::chrono::seconds(2))));
      if (const MdnsService* found = pick(from_server, service, name)) return *found;
    }
    if (Clock::now() >= deadline) break;
    browser.poll(std::min({deadline, next_query, asked_server ? deadline : ask_server_at}));
    if (Clock::now() >= next_query) {
      browser.query();
      interval *= 2;
      next_query = Clock::now() + interval;
    }
  }
  const std::string shown = protocol::printable(name);
  failure.set(errc::not_found,
              "no " + service + " service named " + shown + " answered by mDNS" +
                  (error ? " (discovery cannot run here: " + why + ")" : std::string()) +
                  ": is the phone on this network with Wireless debugging on? `adbwire mdns "
                  "services` lists what answers");
  return {};
}

}  // namespace

std::vector<MdnsService> mdns_services(const MdnsOptions& options) {
  return detail::or_throw([&](Failure& failure) { return services_of(options, failure); });
}

std::vector<MdnsService> mdns_services(const MdnsOptions& options, std::error_code& error) {
  return detail::or_code(error, [&](Failure& failure) { return services_of(options, failure); });
}

MdnsService resolve_mdns_service(std::string_view service, std::string_view name, Deadline deadline,
                                 const MdnsOptions& options) {
  return detail::or_throw(
      [&](Failure& failure) { return resolve(service, name, deadline, options, failure); });
}

MdnsService resolve_mdns_service(std::string_view service, std::string_view name, Deadline deadline,
                                 const MdnsOptions& options, std::error_code& error) {
  return detail::or_code(
      error, [&](Failure& failure) { return resolve(service, name, deadline, options, failure); });
}

MdnsStatus mdns_check(const MdnsOptions& options) {
  std::error_code error;
  MdnsBrowser browser(options, error);
  MdnsStatus status = browser.status();
  if (error) {
    status.problem = last_error_detail();
    for (const mdns::Interface& interface : mdns::multicast_interfaces())
      status.interfaces.push_back(interface.name + " " + mdns::dotted(interface.address));
  }
  if (options.ask_adb_server) {
    const AdbServer server(options.adb_server, std::chrono::seconds(1), error);
    if (!error) {
      const std::string answer = server.mdns_check(deadline_after(std::chrono::seconds(1)), error);
      if (!error) status.adb_server = answer;
    }
  }
  return status;
}

}  // namespace adbwire
