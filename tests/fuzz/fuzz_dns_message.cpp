// Fuzzes the DNS codec mDNS discovery reads datagrams from anyone on the network with: a refusal
// always carries a reason; a message that parses and re-encodes parses again to the same names,
// types, ports, addresses and TXT strings (what discovery takes from it).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "adbwire/protocol/dns.hpp"

namespace {

using adbwire::protocol::DnsRecord;

bool same(const std::vector<DnsRecord>& a, const std::vector<DnsRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].ttl != b[i].ttl ||
        a[i].target != b[i].target || a[i].port != b[i].port || a[i].address != b[i].address) {
      return false;
    }
    // An empty TXT is written as one empty string, whichever side holds which.
    const std::vector<std::string> one_empty{""};
    if (a[i].txt != b[i].txt && !(a[i].txt.empty() && b[i].txt == one_empty) &&
        !(a[i].txt == one_empty && b[i].txt.empty()))
      return false;
  }
  return true;
}

bool encodable(const std::vector<DnsRecord>& records) {
  for (const DnsRecord& record : records) {
    if (record.malformed) return false;
    switch (record.type) {
      case adbwire::protocol::kDnsTypeA:
      case adbwire::protocol::kDnsTypeAaaa:
      case adbwire::protocol::kDnsTypePtr:
      case adbwire::protocol::kDnsTypeSrv:
      case adbwire::protocol::kDnsTypeTxt:
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace adbwire::protocol;
  DnsMessage message;
  std::string why;
  if (parse_dns_message(std::span(data, size), message, why)) {
    if (why.empty()) std::abort();
    return 0;
  }
  if (!encodable(message.answers) || !encodable(message.authorities) ||
      !encodable(message.additionals)) {
    return 0;
  }
  std::vector<std::uint8_t> encoded;
  // Names decompressed may outgrow 9000 bytes, and an empty label cannot be written.
  if (encode_dns_message(message, encoded)) return 0;
  DnsMessage again;
  if (parse_dns_message(encoded, again, why)) std::abort();
  if (again.id != message.id || again.flags != message.flags ||
      again.questions.size() != message.questions.size() || !same(again.answers, message.answers) ||
      !same(again.authorities, message.authorities) ||
      !same(again.additionals, message.additionals)) {
    std::abort();
  }
  return 0;
}
