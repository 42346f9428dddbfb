#include "mdns/service_table.hpp"

#include <algorithm>
#include <tuple>

#include "adbwire/protocol/bytes.hpp"
#include "mdns/multicast.hpp"

namespace adbwire::mdns {
namespace {

using protocol::DnsName;
using protocol::DnsRecord;

std::string key(const DnsName& name) {
  std::string text = protocol::to_text(name);
  std::transform(text.begin(), text.end(), text.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return text;
}

// Drops what expired, then says whether there is room for one more.
template <typename Map>
bool room(Map& map, ServiceTable::Time now) {
  std::erase_if(map, [now](const auto& entry) { return entry.second.until <= now; });
  return map.size() < kMaxMdnsServices;
}

// Stores value under k, or removes k for a goodbye (TTL 0).
template <typename Map, typename Value>
void store(Map& map, const std::string& k, std::uint32_t ttl, Value value, ServiceTable::Time now) {
  if (ttl == 0) {
    map.erase(k);
    return;
  }
  value.until = now + std::chrono::seconds(ttl);
  if (map.contains(k) || room(map, now)) map[k] = std::move(value);
}

}  // namespace

ServiceTable::ServiceTable(const std::vector<std::string>& service_types) {
  for (const std::string& type : service_types) {
    DnsName name = protocol::dns_name(type);
    name.push_back("local");
    types_.push_back(std::move(name));
  }
}

void ServiceTable::add(const protocol::DnsMessage& response, std::uint32_t source, Time now) {
  for (const DnsRecord& record : response.answers) take(record, source, now);
  for (const DnsRecord& record : response.additionals) take(record, source, now);
}

void ServiceTable::take(const DnsRecord& record, std::uint32_t source, Time now) {
  if (record.rrclass != protocol::kDnsClassIn) return;
  switch (record.type) {
    case protocol::kDnsTypePtr: {
      if (record.malformed) return;
      const auto type = std::find_if(types_.begin(), types_.end(), [&](const DnsName& t) {
        return protocol::same_name(t, record.name);
      });
      // The instance is one label followed by the service type itself.
      if (type == types_.end() || record.target.size() != type->size() + 1 ||
          !protocol::same_name(DnsName(record.target.begin() + 1, record.target.end()), *type)) {
        return;
      }
      const DnsName service(type->begin(), type->end() - 1);
      store(instances_, key(record.target), record.ttl,
            Instance{record.target.front(), protocol::to_text(service), {}}, now);
      return;
    }
    case protocol::kDnsTypeSrv:
      if (!record.malformed)
        store(srv_, key(record.name), record.ttl, Srv{key(record.target), record.port, source, {}},
              now);
      return;
    case protocol::kDnsTypeTxt:
      // A broken TXT is no TXT: the service is still there.
      store(txt_, key(record.name), record.ttl,
            Txt{record.malformed ? std::vector<std::string>{} : record.txt, {}}, now);
      return;
    case protocol::kDnsTypeA:
      if (!record.malformed)
        store(addresses_, key(record.name), record.ttl,
              Address{protocol::load_be32(record.address.data()), {}}, now);
      return;
    default:
      return;
  }
}

std::vector<MdnsService> ServiceTable::services(Time now) const {
  std::vector<MdnsService> out;
  for (const auto& [name, instance] : instances_) {
    if (instance.until <= now) continue;
    const auto srv = srv_.find(name);
    if (srv == srv_.end() || srv->second.until <= now) continue;
    MdnsService service;
    service.instance = instance.instance;
    service.service = instance.service;
    service.port = srv->second.port;
    const auto address = addresses_.find(srv->second.host);
    service.host =
        dotted(address != addresses_.end() && address->second.until > now ? address->second.address
                                                                          : srv->second.source);
    if (const auto txt = txt_.find(name); txt != txt_.end() && txt->second.until > now) {
      service.txt = txt->second.strings;
      // An empty TXT record is one empty string: no attributes.
      if (service.txt == std::vector<std::string>{""}) service.txt.clear();
    }
    out.push_back(std::move(service));
  }
  std::sort(out.begin(), out.end(), [](const MdnsService& a, const MdnsService& b) {
    return std::tie(a.service, a.instance) < std::tie(b.service, b.instance);
  });
  return out;
}

protocol::DnsMessage ServiceTable::question(bool unicast_response) const {
  protocol::DnsMessage query;
  for (const DnsName& type : types_) {
    query.questions.push_back(
        {type, protocol::kDnsTypePtr, protocol::kDnsClassIn, unicast_response});
  }
  return query;
}

}  // namespace adbwire::mdns
