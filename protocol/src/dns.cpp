#include "adbwire/protocol/dns.hpp"

#include <algorithm>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::protocol {
namespace {

constexpr std::size_t kHeaderSize = 12;
constexpr std::uint16_t kTopBit = 0x8000;

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Reads one message's fields in order; the first failure sticks and names its offset.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool failed() const noexcept { return !why_.empty(); }
  const std::string& why() const noexcept { return why_; }
  std::size_t at() const noexcept { return at_; }

  bool fail(const std::string& what, std::size_t where) {
    if (why_.empty()) why_ = what + " at byte " + std::to_string(where);
    return false;
  }

  bool need(std::size_t n, const char* what) {
    if (failed()) return false;
    if (bytes_.size() - at_ < n) return fail(std::string("truncated ") + what, at_);
    return true;
  }

  std::uint16_t u16(const char* what) {
    if (!need(2, what)) return 0;
    const std::uint16_t v = load_be16(bytes_.data() + at_);
    at_ += 2;
    return v;
  }

  std::uint32_t u32(const char* what) {
    if (!need(4, what)) return 0;
    const std::uint32_t v = load_be32(bytes_.data() + at_);
    at_ += 4;
    return v;
  }

  // A name starting at the current offset; the offset moves past its first pointer or its end.
  DnsName name(const char* what) {
    DnsName out;
    if (failed()) return out;
    std::size_t pos = at_;
    std::size_t limit = at_;  // a pointer must point before every segment read so far
    std::size_t wire = 1;     // the root's byte
    bool jumped = false;
    for (;;) {
      if (pos >= bytes_.size()) {
        fail(std::string("truncated ") + what, pos);
        return out;
      }
      const std::uint8_t length = bytes_[pos];
      if (length == 0) {
        if (!jumped) at_ = pos + 1;
        return out;
      }
      if ((length & 0xC0) == 0xC0) {
        if (pos + 1 >= bytes_.size()) {
          fail(std::string("truncated pointer in ") + what, pos);
          return out;
        }
        const std::size_t target = (std::size_t{length & 0x3Fu} << 8) | bytes_[pos + 1];
        if (target >= limit) {
          fail(std::string("compression pointer that does not point backwards in ") + what, pos);
          return out;
        }
        if (!jumped) at_ = pos + 2;
        jumped = true;
        pos = limit = target;
        continue;
      }
      if ((length & 0xC0) != 0) {
        fail(std::string("reserved label type in ") + what, pos);
        return out;
      }
      wire += 1 + length;
      if (wire > kMaxDnsName) {
        fail(std::string("name over 255 bytes in ") + what, pos);
        return out;
      }
      if (bytes_.size() - pos - 1 < length) {
        fail(std::string("truncated label in ") + what, pos);
        return out;
      }
      out.emplace_back(reinterpret_cast<const char*>(bytes_.data() + pos + 1), length);
      pos += 1 + length;
    }
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
  std::string why_;
};

// The data of a record of a known type, read from [start, start + length). Leaves the record
// marked malformed where it does not parse; the reader moves past the data either way.
void read_data(Reader& reader, std::size_t length, DnsRecord& record) {
  const std::size_t start = reader.at();
  const std::size_t end = start + length;
  const auto data = reader.bytes_.subspan(start, length);
  switch (record.type) {
    case kDnsTypeA:
    case kDnsTypeAaaa: {
      const std::size_t size = record.type == kDnsTypeA ? 4 : 16;
      if (length != size) {
        record.malformed = true;
        break;
      }
      std::copy(data.begin(), data.end(), record.address.begin());
      break;
    }
    case kDnsTypeTxt: {
      std::size_t pos = 0;
      while (pos < length) {
        const std::size_t size = data[pos];
        if (length - pos - 1 < size) {
          record.malformed = true;  // a string running past its record: old adbd sent such
          break;
        }
        record.txt.emplace_back(reinterpret_cast<const char*>(data.data() + pos + 1), size);
        pos += 1 + size;
      }
      break;
    }
    case kDnsTypePtr:
    case kDnsTypeSrv: {
      // The name may point anywhere before it in the message, but must end inside the data.
      Reader inner(reader.bytes_.first(end));
      inner.at_ = start;
      if (record.type == kDnsTypeSrv) {
        record.priority = inner.u16("SRV priority");
        record.weight = inner.u16("SRV weight");
        record.port = inner.u16("SRV port");
      }
      record.target = inner.name("record data");
      if (inner.failed() || inner.at() != end) {
        record.malformed = true;
        record.target.clear();
      }
      break;
    }
    default:
      break;
  }
  reader.at_ = end;
}

bool read_records(Reader& reader, std::uint16_t count, std::vector<DnsRecord>& out) {
  for (std::uint16_t i = 0; i < count; ++i) {
    DnsRecord record;
    record.name = reader.name("record name");
    record.type = reader.u16("record type");
    const std::uint16_t rrclass = reader.u16("record class");
    record.rrclass = rrclass & ~kTopBit;
    record.cache_flush = (rrclass & kTopBit) != 0;
    record.ttl = reader.u32("record TTL");
    const std::uint16_t length = reader.u16("record length");
    if (!reader.need(length, "record data")) return false;
    read_data(reader, length, record);
    out.push_back(std::move(record));
  }
  return !reader.failed();
}

bool put_name(const DnsName& name, std::vector<std::uint8_t>& out) {
  std::size_t wire = 1;
  for (const std::string& label : name) {
    if (label.empty() || label.size() > kMaxDnsLabel) return false;
    wire += 1 + label.size();
    if (wire > kMaxDnsName) return false;
    out.push_back(static_cast<std::uint8_t>(label.size()));
    out.insert(out.end(), label.begin(), label.end());
  }
  out.push_back(0);
  return true;
}

bool put_record(const DnsRecord& record, std::vector<std::uint8_t>& out) {
  if (!put_name(record.name, out)) return false;
  append_be16(out, record.type);
  append_be16(out, static_cast<std::uint16_t>(record.rrclass | (record.cache_flush ? kTopBit : 0)));
  append_be32(out, record.ttl);
  const std::size_t length_at = out.size();
  append_be16(out, 0);
  switch (record.type) {
    case kDnsTypeA:
      out.insert(out.end(), record.address.begin(), record.address.begin() + 4);
      break;
    case kDnsTypeAaaa:
      out.insert(out.end(), record.address.begin(), record.address.end());
      break;
    case kDnsTypeSrv:
      append_be16(out, record.priority);
      append_be16(out, record.weight);
      append_be16(out, record.port);
      if (!put_name(record.target, out)) return false;
      break;
    case kDnsTypePtr:
      if (!put_name(record.target, out)) return false;
      break;
    case kDnsTypeTxt:
      for (const std::string& text : record.txt) {
        if (text.size() > 255) return false;
        out.push_back(static_cast<std::uint8_t>(text.size()));
        out.insert(out.end(), text.begin(), text.end());
      }
      if (record.txt.empty()) out.push_back(0);  // RFC 6763 §6.1: one empty string
      break;
    default:
      return false;
  }
  const std::size_t length = out.size() - length_at - 2;
  if (length > 0xFFFF) return false;
  store_be16(out.data() + length_at, static_cast<std::uint16_t>(length));
  return true;
}

}  // namespace

DnsName dns_name(std::string_view dotted) {
  DnsName name;
  while (!dotted.empty()) {
    const auto dot = dotted.find('.');
    name.emplace_back(dotted.substr(0, dot));
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return name;
}

std::string to_text(const DnsName& name) {
  std::string text;
  for (const std::string& label : name) {
    if (!text.empty()) text += '.';
    for (const char c : label) {
      if (c == '.' || c == '\\') text += '\\';
      text += c;
    }
  }
  return text;
}

bool same_name(const DnsName& a, const DnsName& b) noexcept {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const std::string& x, const std::string& y) {
                      return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                                        [](char p, char q) { return lower(p) == lower(q); });
                    });
}

std::error_code parse_dns_message(std::span<const std::uint8_t> bytes, DnsMessage& out,
                                  std::string& why) {
  out = {};
  if (bytes.size() > kMaxDnsMessage) {
    why = "DNS message of " + std::to_string(bytes.size()) + " bytes (mDNS allows " +
          std::to_string(kMaxDnsMessage) + ")";
    return errc::protocol_error;
  }
  Reader reader(bytes);
  if (!reader.need(kHeaderSize, "DNS header")) {
    why = reader.why();
    return errc::protocol_error;
  }
  out.id = reader.u16("id");
  out.flags = reader.u16("flags");
  const std::uint16_t questions = reader.u16("count");
  const std::uint16_t answers = reader.u16("count");
  const std::uint16_t authorities = reader.u16("count");
  const std::uint16_t additionals = reader.u16("count");
  for (std::uint16_t i = 0; i < questions && !reader.failed(); ++i) {
    DnsQuestion question;
    question.name = reader.name("question name");
    question.type = reader.u16("question type");
    const std::uint16_t qclass = reader.u16("question class");
    question.qclass = qclass & ~kTopBit;
    question.unicast_response = (qclass & kTopBit) != 0;
    if (!reader.failed()) out.questions.push_back(std::move(question));
  }
  if (reader.failed() || !read_records(reader, answers, out.answers) ||
      !read_records(reader, authorities, out.authorities) ||
      !read_records(reader, additionals, out.additionals)) {
    why = "malformed DNS message: " + reader.why();
    return errc::protocol_error;
  }
  return {};
}

std::error_code encode_dns_message(const DnsMessage& message, std::vector<std::uint8_t>& out) {
  std::vector<std::uint8_t> bytes;
  append_be16(bytes, message.id);
  append_be16(bytes, message.flags);
  const std::size_t counts[] = {message.questions.size(), message.answers.size(),
                                message.authorities.size(), message.additionals.size()};
  for (const std::size_t count : counts) {
    if (count > 0xFFFF) return errc::invalid_argument;
    append_be16(bytes, static_cast<std::uint16_t>(count));
  }
  for (const DnsQuestion& question : message.questions) {
    if (!put_name(question.name, bytes)) return errc::invalid_argument;
    append_be16(bytes, question.type);
    append_be16(bytes, static_cast<std::uint16_t>(question.qclass |
                                                  (question.unicast_response ? kTopBit : 0)));
  }
  for (const auto* section : {&message.answers, &message.authorities, &message.additionals}) {
    for (const DnsRecord& record : *section) {
      if (!put_record(record, bytes)) return errc::invalid_argument;
    }
  }
  if (bytes.size() > kMaxDnsMessage) return errc::invalid_argument;
  out = std::move(bytes);
  return {};
}

}  // namespace adbwire::protocol
