// DNS messages as multicast DNS carries them (RFC 1035 §4, RFC 6762): what Wireless debugging's
// discovery reads and writes. A phone advertises _adb-tls-pairing._tcp and _adb-tls-connect._tcp
// with PTR, SRV, TXT and A/AAAA records; the host asks with questions. See dns.md.
//
// The parser takes datagrams from anyone on the network, so it trusts nothing: names follow
// compression pointers only backwards (no loop), are at most 255 bytes on the wire, labels at most
// 63; every length is checked against the datagram; memory is bounded by the datagram's size
// (kMaxDnsMessage). A record of a known type whose data does not parse (a TXT string running past
// its record, an A record of 3 bytes) is kept and marked malformed, since its length still says
// where the next record starts; only a broken message frame fails the whole message.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace adbwire::protocol {

inline constexpr std::uint16_t kDnsTypeA = 1;
inline constexpr std::uint16_t kDnsTypePtr = 12;
inline constexpr std::uint16_t kDnsTypeTxt = 16;
inline constexpr std::uint16_t kDnsTypeAaaa = 28;
inline constexpr std::uint16_t kDnsTypeSrv = 33;
inline constexpr std::uint16_t kDnsTypeAny = 255;
inline constexpr std::uint16_t kDnsClassIn = 1;
// Header flags: QR (a response) and AA (authoritative, as every mDNS response is).
inline constexpr std::uint16_t kDnsFlagResponse = 0x8000;
inline constexpr std::uint16_t kDnsFlagAuthoritative = 0x0400;
// RFC 6762 §17: a multicast DNS message is at most 9000 bytes.
inline constexpr std::size_t kMaxDnsMessage = 9000;
inline constexpr std::size_t kMaxDnsName = 255;  // on the wire, with length bytes and the root
inline constexpr std::size_t kMaxDnsLabel = 63;

// A domain name as its labels, without the root ("adb-R5CT-AbCdEf", "_adb-tls-connect", "_tcp",
// "local"). A label may hold any byte, a dot included (DNS-SD instance names do).
using DnsName = std::vector<std::string>;

// Splits dotted text into labels (for names none of whose labels holds a dot, such as
// "_adb-tls-connect._tcp.local"); a trailing dot is the root.
DnsName dns_name(std::string_view dotted);
// The labels joined by dots; a dot or backslash inside a label is escaped with a backslash.
std::string to_text(const DnsName& name);
// DNS compares names ignoring ASCII case (RFC 4343).
bool same_name(const DnsName& a, const DnsName& b) noexcept;

struct DnsQuestion {
  DnsName name;
  std::uint16_t type = kDnsTypeAny;
  std::uint16_t qclass = kDnsClassIn;
  bool unicast_response = false;  // the QU bit (RFC 6762 §5.4): answer me by unicast
};

struct DnsRecord {
  DnsName name;
  std::uint16_t type = 0;
  std::uint16_t rrclass = kDnsClassIn;
  bool cache_flush = false;  // RFC 6762 §10.2: this record replaces older ones of its name
  std::uint32_t ttl = 0;     // 0: a goodbye, the record is gone
  // PTR: the instance; SRV: the host.
  DnsName target;
  // SRV.
  std::uint16_t priority = 0;
  std::uint16_t weight = 0;
  std::uint16_t port = 0;
  // A: the first 4 bytes; AAAA: all 16.
  std::array<std::uint8_t, 16> address{};
  // TXT: its strings in order ("v=1", "name=Pixel 8"), as far as they parse.
  std::vector<std::string> txt;
  // The data of a known type did not parse; the fields above hold what did.
  bool malformed = false;
};

struct DnsMessage {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;
  std::vector<DnsQuestion> questions;
  std::vector<DnsRecord> answers;
  std::vector<DnsRecord> authorities;
  std::vector<DnsRecord> additionals;

  bool is_response() const noexcept { return (flags & kDnsFlagResponse) != 0; }
};

// Parses one datagram. protocol_error, with why naming the first problem and its offset, for a
// message over kMaxDnsMessage, a truncated header, section or record, a bad name (a label over
// 63 bytes, a reserved label type, a pointer that does not point backwards, a name over 255
// bytes). out is left in an unspecified state on error.
std::error_code parse_dns_message(std::span<const std::uint8_t> bytes, DnsMessage& out,
                                  std::string& why);

// Encodes message (no name compression). invalid_argument, out unchanged, for an empty label, a
// label over 63 bytes, a name over 255, a TXT string over 255 bytes, an unknown record type (only
// A, AAAA, PTR, SRV and TXT are written), a message over kMaxDnsMessage.
std::error_code encode_dns_message(const DnsMessage& message, std::vector<std::uint8_t>& out);

}  // namespace adbwire::protocol
