#include "vdevice/mdns_responder.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::vdevice {
namespace {

using protocol::DnsMessage;
using protocol::DnsName;
using protocol::DnsRecord;

constexpr std::uint32_t kHostTtl = 120;   // SRV, TXT, A (RFC 6762 §10)
constexpr std::uint32_t kPtrTtl = 4500;   // PTR
constexpr std::uint32_t kLegacyTtl = 10;  // answers to one-shot queries (§6.7)

DnsName with_local(const std::string& dotted) {
  DnsName name = protocol::dns_name(dotted);
  name.push_back("local");
  return name;
}

DnsName instance_name(const MdnsResponder::Service& service) {
  DnsName name = with_local(service.type);
  name.insert(name.begin(), service.instance);
  return name;
}

bool asks(const protocol::DnsQuestion& question, std::uint16_t type, const DnsName& name) {
  return (question.type == type || question.type == protocol::kDnsTypeAny) &&
         protocol::same_name(question.name, name);
}

// A TXT record whose data is "v=1" with no length byte, as adbd's first Wireless debugging
// builds wrote it: the byte 'v' announces a string of 118 bytes in 3.
void append_broken_txt(std::vector<std::uint8_t>& bytes, const DnsName& name, std::uint32_t ttl) {
  for (const std::string& label : name) {
    bytes.push_back(static_cast<std::uint8_t>(label.size()));
    bytes.insert(bytes.end(), label.begin(), label.end());
  }
  bytes.push_back(0);
  protocol::append_be16(bytes, protocol::kDnsTypeTxt);
  protocol::append_be16(bytes, protocol::kDnsClassIn);
  protocol::append_be32(bytes, ttl);
  protocol::append_be16(bytes, 3);
  bytes.insert(bytes.end(), {'v', '=', '1'});
  protocol::store_be16(bytes.data() + 10,
                       static_cast<std::uint16_t>(protocol::load_be16(bytes.data() + 10) + 1));
}

}  // namespace

std::unique_ptr<MdnsResponder> MdnsResponder::start(Options options, detail::Failure& failure) {
  std::unique_ptr<MdnsResponder> responder(new MdnsResponder(std::move(options)));
  MdnsResponder& r = *responder;
  const auto address = mdns::parse_ipv4(r.options_.address);
  if (!address) {
    failure.set(errc::not_supported,
                "mDNS advertising needs an IPv4 address, not " + r.options_.address);
    return nullptr;
  }
  r.address_ = *address;
  for (const mdns::Interface& interface : mdns::multicast_interfaces()) {
    if (r.address_ == 0 || interface.address == r.address_) r.served_.push_back(interface);
  }
  if (r.served_.empty()) {
    failure.set(errc::not_supported,
                "no interface that can multicast has the address " + r.options_.address);
    return nullptr;
  }
  std::string why;
  r.socket_ = mdns::UdpSocket::open_shared(r.served_, why);
  if (!r.socket_.valid()) {
    failure.set(errc::busy, "cannot advertise by mDNS: " + why);
    return nullptr;
  }
  if (::pipe2(r.wake_, O_CLOEXEC) != 0) {
    failure.set(errc::io_error, "cannot make the mDNS responder's wake pipe");
    return nullptr;
  }
  {
    detail::MutexLock lock(r.mutex_);
    r.services_ = r.options_.services;
  }
  r.announce(r.options_.services, false);
  r.thread_ = std::thread([&r] { r.run(); });
  return responder;
}

MdnsResponder::~MdnsResponder() {
  if (thread_.joinable()) {
    const char stop = 1;
    [[maybe_unused]] const auto written = ::write(wake_[1], &stop, 1);
    thread_.join();
  }
  std::vector<Service> services;
  {
    detail::MutexLock lock(mutex_);
    services = services_;
  }
  if (socket_.valid()) announce(services, true);
  for (const int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void MdnsResponder::rename(const std::string& type, const std::string& instance) {
  std::vector<Service> old;
  std::vector<Service> renamed;
  {
    detail::MutexLock lock(mutex_);
    for (Service& service : services_) {
      if (service.type != type) continue;
      old.push_back(service);
      service.instance = instance;
      renamed.push_back(service);
    }
  }
  announce(old, true);
  announce(renamed, false);
}

void MdnsResponder::run() {
  std::vector<std::uint8_t> buffer(protocol::kMaxDnsMessage);
  for (;;) {
    pollfd polls[] = {{socket_.fd(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(polls, 2, -1) < 0) continue;
    if (polls[1].revents != 0) return;
    while (auto datagram = socket_.receive(buffer)) {
      answer(std::span(buffer).first(datagram->size), *datagram);
    }
  }
}

void MdnsResponder::answer(std::span<const std::uint8_t> bytes, const mdns::Datagram& from) {
  DnsMessage query;
  std::string why;
  if (protocol::parse_dns_message(bytes, query, why) || query.is_response() ||
      query.questions.empty()) {
    return;
  }
  const auto interface = std::find_if(served_.begin(), served_.end(),
                                      [&](const auto& i) { return i.index == from.interface; });
  if (interface == served_.end()) return;
  std::vector<Service> services;
  {
    detail::MutexLock lock(mutex_);
    services = services_;
  }
  const bool legacy = from.port != mdns::kMdnsPort;
  const std::vector<std::uint8_t> reply =
      response(services, query, address_ != 0 ? address_ : interface->address, legacy, false);
  if (reply.empty()) return;
  if (legacy) {
    socket_.send_to(reply, from.source, from.port);
  } else {
    socket_.send_multicast(reply, *interface);
  }
}

void MdnsResponder::announce(const std::vector<Service>& services, bool goodbye) {
  DnsMessage all;
  for (const Service& service : services) {
    all.questions.push_back({with_local(service.type), protocol::kDnsTypePtr});
  }
  for (const mdns::Interface& interface : served_) {
    const auto bytes =
        response(services, all, address_ != 0 ? address_ : interface.address, false, goodbye);
    if (!bytes.empty()) socket_.send_multicast(bytes, interface);
  }
}

std::vector<std::uint8_t> MdnsResponder::response(const std::vector<Service>& services,
                                                  const DnsMessage& query, std::uint32_t address,
                                                  bool legacy, bool goodbye) const {
  const auto ttl = [&](std::uint32_t normal) {
    return goodbye ? 0 : legacy ? std::min(normal, kLegacyTtl) : normal;
  };
  DnsMessage reply;
  reply.flags = protocol::kDnsFlagResponse | protocol::kDnsFlagAuthoritative;
  if (legacy) {
    reply.id = query.id;
    reply.questions = query.questions;
    for (auto& question : reply.questions) question.unicast_response = false;
  }
  const DnsName host = with_local(options_.host_name);
  std::vector<DnsName> broken_txt;
  bool host_wanted = false;
  const auto add = [&](std::vector<DnsRecord>& section, DnsRecord record) {
    record.cache_flush = !legacy && record.type != protocol::kDnsTypePtr;
    const auto same = [&](const DnsRecord& r) {
      return r.type == record.type && protocol::same_name(r.name, record.name);
    };
    if (std::none_of(reply.answers.begin(), reply.answers.end(), same) &&
        std::none_of(reply.additionals.begin(), reply.additionals.end(), same)) {
      section.push_back(std::move(record));
    }
  };
  const auto describe = [&](std::vector<DnsRecord>& section, const Service& service, bool srv,
                            bool txt) {
    const DnsName name = instance_name(service);
    if (srv) {
      DnsRecord record;
      record.name = name;
      record.type = protocol::kDnsTypeSrv;
      record.ttl = ttl(kHostTtl);
      record.port = service.port;
      record.target = host;
      add(section, std::move(record));
      host_wanted = true;
    }
    if (!txt || options_.txt == MdnsTxt::none) return;
    if (options_.txt == MdnsTxt::broken) {
      if (std::none_of(broken_txt.begin(), broken_txt.end(),
                       [&](const DnsName& n) { return n == name; })) {
        broken_txt.push_back(name);
      }
      return;
    }
    DnsRecord record;
    record.name = name;
    record.type = protocol::kDnsTypeTxt;
    record.ttl = ttl(kHostTtl);
    record.txt = options_.txt_strings;
    add(section, std::move(record));
  };
  for (const protocol::DnsQuestion& question : query.questions) {
    for (const Service& service : services) {
      if (asks(question, protocol::kDnsTypePtr, with_local(service.type))) {
        DnsRecord ptr;
        ptr.name = with_local(service.type);
        ptr.type = protocol::kDnsTypePtr;
        ptr.ttl = ttl(kPtrTtl);
        ptr.target = instance_name(service);
        add(reply.answers, std::move(ptr));
        describe(reply.additionals, service, true, true);
      }
      const DnsName name = instance_name(service);
      const bool srv = asks(question, protocol::kDnsTypeSrv, name);
      const bool txt = asks(question, protocol::kDnsTypeTxt, name);
      if (srv || txt) describe(reply.answers, service, srv, txt);
    }
    if (asks(question, protocol::kDnsTypeA, host)) host_wanted = true;
  }
  if (host_wanted) {
    DnsRecord a;
    a.name = host;
    a.type = protocol::kDnsTypeA;
    a.ttl = ttl(kHostTtl);
    protocol::store_be32(a.address.data(), address);
    add(reply.additionals, std::move(a));
  }
  if (reply.answers.empty() && reply.additionals.empty() && broken_txt.empty()) return {};
  std::vector<std::uint8_t> bytes;
  if (protocol::encode_dns_message(reply, bytes)) return {};
  for (const DnsName& name : broken_txt) append_broken_txt(bytes, name, ttl(kHostTtl));
  return bytes;
}

}  // namespace adbwire::vdevice
