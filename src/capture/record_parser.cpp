#include "capture/record_parser.hpp"

#include <algorithm>
#include <cstdio>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"

namespace adbwire::capture_detail {

using protocol::load_be32;
using protocol::load_le32;
using protocol::load_u16;
using protocol::load_u32;
using protocol::load_u64;

namespace {

constexpr std::uint32_t kPcapMagicMicro = 0xa1b2c3d4;
constexpr std::uint32_t kPcapMagicNano = 0xa1b23c4d;
constexpr std::size_t kPcapHeaderSize = 24;
constexpr std::size_t kPcapRecordHeaderSize = 16;

constexpr std::uint32_t kBlockSectionHeader = 0x0a0d0d0a;
constexpr std::uint32_t kBlockInterface = 1;
constexpr std::uint32_t kBlockPacketObsolete = 2;
constexpr std::uint32_t kBlockSimplePacket = 3;
constexpr std::uint32_t kBlockEnhancedPacket = 6;
constexpr std::uint32_t kByteOrderMagic = 0x1a2b3c4d;
constexpr std::uint16_t kOptionEnd = 0;
constexpr std::uint16_t kOptionTsResol = 9;
constexpr std::uint16_t kOptionTsOffset = 14;

std::string hex32(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

// Timestamp units → nanoseconds without overflow for any resolution pcapng allows.
std::int64_t to_nanoseconds(std::uint64_t ticks, std::uint64_t units_per_second) {
  constexpr std::uint64_t kNano = 1'000'000'000;
  const std::uint64_t seconds = ticks / units_per_second;
  const std::uint64_t fraction = ticks % units_per_second;
  std::uint64_t fraction_ns = 0;
  if (units_per_second <= kNano && kNano % units_per_second == 0) {
    fraction_ns = fraction * (kNano / units_per_second);
  } else {
    fraction_ns = static_cast<std::uint64_t>(static_cast<long double>(fraction) * kNano /
                                             static_cast<long double>(units_per_second));
  }
  return static_cast<std::int64_t>(seconds * kNano + fraction_ns);
}

}  // namespace

std::size_t RecordParser::fail(std::string detail) {
  failed_ = true;
  fault_.record_index = header_done_ ? packets_ + 1 : 0;
  fault_.byte_offset = unit_offset_;
  fault_.detail = std::move(detail);
  return 0;
}

std::error_code RecordParser::feed(std::span<const std::uint8_t> bytes, const Sink& sink) {
  if (failed_) return errc::parse_error;
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  std::size_t pos = 0;
  while (!failed_ && buffer_.size() - pos >= std::max<std::size_t>(needed_, 1)) {
    unit_offset_ = buffer_offset_ + pos;
    const std::size_t used = parse_unit(std::span(buffer_).subspan(pos), sink);
    if (used == 0) break;
    pos += used;
    needed_ = 0;
  }
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos));
  buffer_offset_ += pos;
  return failed_ ? make_error_code(errc::parse_error) : std::error_code{};
}

std::error_code RecordParser::finish() {
  if (failed_) return errc::parse_error;
  if (!buffer_.empty() || format_ == Format::unknown) {
    unit_offset_ = buffer_offset_;
    if (format_ == Format::unknown && buffer_.empty()) {
      fail("the file is empty: not a pcap or pcapng capture");
    } else if (!header_done_) {
      fail("the file ends inside its header after " + std::to_string(buffer_.size()) +
           " bytes: truncated capture");
    } else {
      fail("the file ends inside record " + std::to_string(packets_ + 1) + ": it needs " +
           std::to_string(needed_) + " bytes, only " + std::to_string(buffer_.size()) +
           " are present (truncated capture)");
    }
    return errc::parse_error;
  }
  return {};
}

std::size_t RecordParser::parse_unit(std::span<const std::uint8_t> in, const Sink& sink) {
  if (format_ == Format::unknown) {
    if (in.size() < 4) {
      needed_ = 4;
      return 0;
    }
    const std::uint32_t magic = load_le32(in.data());
    if (magic == kBlockSectionHeader) {
      format_ = Format::pcapng;
    } else if (magic == kPcapMagicMicro || magic == kPcapMagicNano ||
               load_be32(in.data()) == kPcapMagicMicro || load_be32(in.data()) == kPcapMagicNano) {
      format_ = Format::pcap;
    } else {
      return fail("not a pcap or pcapng file (first four bytes " + hex32(load_be32(in.data())) +
                  ")");
    }
  }
  if (format_ == Format::pcap) {
    return header_done_ ? parse_pcap_record(in, sink) : parse_pcap_header(in);
  }
  return parse_pcapng_block(in, sink);
}

std::size_t RecordParser::parse_pcap_header(std::span<const std::uint8_t> in) {
  if (in.size() < kPcapHeaderSize) {
    needed_ = kPcapHeaderSize;
    return 0;
  }
  const std::uint32_t magic = load_le32(in.data());
  big_endian_ = magic != kPcapMagicMicro && magic != kPcapMagicNano;
  pcap_units_ = load_u32(in.data(), big_endian_) == kPcapMagicNano ? 1'000'000'000 : 1'000'000;
  pcap_link_type_ = load_u32(in.data() + 20, big_endian_) & 0xffff;
  header_done_ = true;
  return kPcapHeaderSize;
}

std::size_t RecordParser::parse_pcap_record(std::span<const std::uint8_t> in, const Sink& sink) {
  if (in.size() < kPcapRecordHeaderSize) {
    needed_ = kPcapRecordHeaderSize;
    return 0;
  }
  const std::uint32_t captured = load_u32(in.data() + 8, big_endian_);
  if (captured > kMaxBlockSize) {
    return fail("record " + std::to_string(packets_ + 1) + " claims " + std::to_string(captured) +
                " captured bytes, more than any capture holds: corrupt file");
  }
  const std::uint32_t fraction = load_u32(in.data() + 4, big_endian_);
  if (fraction >= pcap_units_) {
    return fail("record " + std::to_string(packets_ + 1) + " has a timestamp fraction " +
                std::to_string(fraction) + " out of range: corrupt file");
  }
  const std::size_t total = kPcapRecordHeaderSize + captured;
  if (in.size() < total) {
    needed_ = total;
    return 0;
  }
  Interface iface;
  iface.link_type = pcap_link_type_;
  iface.units_per_second = pcap_units_;
  const std::uint64_t ticks =
      std::uint64_t{load_u32(in.data(), big_endian_)} * pcap_units_ + fraction;
  emit(iface, ticks, in.subspan(kPcapRecordHeaderSize, captured),
       load_u32(in.data() + 12, big_endian_), sink);
  return total;
}

std::size_t RecordParser::parse_pcapng_block(std::span<const std::uint8_t> in, const Sink& sink) {
  if (in.size() < 12) {
    needed_ = 12;
    return 0;
  }
  const std::uint32_t type_le = load_le32(in.data());
  if (type_le == kBlockSectionHeader) {
    const std::uint32_t bom = load_le32(in.data() + 8);
    if (bom == kByteOrderMagic) {
      big_endian_ = false;
    } else if (load_be32(in.data() + 8) == kByteOrderMagic) {
      big_endian_ = true;
    } else {
      return fail("section header block has byte-order magic " + hex32(bom) +
                  " (expected 0x1a2b3c4d): corrupt file");
    }
  } else if (!header_done_) {
    return fail("pcapng file does not start with a section header block");
  }
  const std::uint32_t type = load_u32(in.data(), big_endian_);
  const std::uint32_t length = load_u32(in.data() + 4, big_endian_);
  if (length < 12 || length % 4 != 0 || length > kMaxBlockSize) {
    return fail("block of type " + hex32(type) + " has invalid length " + std::to_string(length) +
                ": corrupt file");
  }
  if (in.size() < length) {
    needed_ = length;
    return 0;
  }
  if (load_u32(in.data() + length - 4, big_endian_) != length) {
    return fail("block of type " + hex32(type) + " ends with length " +
                std::to_string(load_u32(in.data() + length - 4, big_endian_)) +
                ", its start says " + std::to_string(length) + ": corrupt file");
  }
  const auto body = in.subspan(8, length - 12);
  switch (type) {
    case kBlockSectionHeader:
      if (!parse_section_header(body)) return 0;
      break;
    case kBlockInterface:
      if (!parse_interface(body)) return 0;
      break;
    case kBlockEnhancedPacket: {
      if (body.size() < 20) return fail("enhanced packet block shorter than its fixed fields");
      const std::uint32_t id = load_u32(body.data(), big_endian_);
      if (id >= interfaces_.size()) {
        return fail("packet refers to interface " + std::to_string(id) + " but only " +
                    std::to_string(interfaces_.size()) + " are described");
      }
      const std::uint32_t captured = load_u32(body.data() + 12, big_endian_);
      if (captured > body.size() - 20) {
        return fail("enhanced packet block claims " + std::to_string(captured) +
                    " captured bytes but holds " + std::to_string(body.size() - 20));
      }
      const std::uint64_t ticks = std::uint64_t{load_u32(body.data() + 4, big_endian_)} << 32 |
                                  load_u32(body.data() + 8, big_endian_);
      emit(interfaces_[id], ticks, body.subspan(20, captured),
           load_u32(body.data() + 16, big_endian_), sink);
      break;
    }
    case kBlockSimplePacket: {
      if (interfaces_.empty()) return fail("simple packet block before any interface description");
      if (body.size() < 4) return fail("simple packet block shorter than its fixed field");
      const std::uint32_t original = load_u32(body.data(), big_endian_);
      std::size_t captured = std::min<std::size_t>(original, body.size() - 4);
      if (interfaces_[0].snap_length != 0)
        captured = std::min<std::size_t>(captured, interfaces_[0].snap_length);
      Interface untimed = interfaces_[0];
      emit(untimed, 0, body.subspan(4, captured), original, sink);
      break;
    }
    case kBlockPacketObsolete: {
      if (body.size() < 20) return fail("packet block shorter than its fixed fields");
      const std::uint16_t id = load_u16(body.data(), big_endian_);
      if (id >= interfaces_.size()) {
        return fail("packet refers to interface " + std::to_string(id) + " but only " +
                    std::to_string(interfaces_.size()) + " are described");
      }
      const std::uint32_t captured = load_u32(body.data() + 12, big_endian_);
      if (captured > body.size() - 20) return fail("packet block claims more bytes than it holds");
      const std::uint64_t ticks = std::uint64_t{load_u32(body.data() + 4, big_endian_)} << 32 |
                                  load_u32(body.data() + 8, big_endian_);
      emit(interfaces_[id], ticks, body.subspan(20, captured),
           load_u32(body.data() + 16, big_endian_), sink);
      break;
    }
    default:
      break;  // name resolution, statistics, custom blocks: nothing ADB needs
  }
  return length;
}

bool RecordParser::parse_section_header(std::span<const std::uint8_t> body) {
  if (body.size() < 12) {
    fail("section header block shorter than its fixed fields");
    return false;
  }
  const std::uint16_t major = load_u16(body.data() + 4, big_endian_);
  if (major != 1) {
    fail("pcapng major version " + std::to_string(major) + " is not supported (only 1)");
    return false;
  }
  interfaces_.clear();
  header_done_ = true;
  return true;
}

bool RecordParser::parse_interface(std::span<const std::uint8_t> body) {
  if (body.size() < 8) {
    fail("interface description block shorter than its fixed fields");
    return false;
  }
  Interface iface;
  iface.link_type = load_u16(body.data(), big_endian_);
  iface.snap_length = load_u32(body.data() + 4, big_endian_);
  std::size_t pos = 8;
  while (pos + 4 <= body.size()) {
    const std::uint16_t code = load_u16(body.data() + pos, big_endian_);
    const std::uint16_t size = load_u16(body.data() + pos + 2, big_endian_);
    pos += 4;
    if (code == kOptionEnd) break;
    if (pos + size > body.size()) {
      fail("interface option " + std::to_string(code) + " runs past the end of its block");
      return false;
    }
    if (code == kOptionTsResol && size >= 1) {
      const std::uint8_t resolution = body[pos];
      const unsigned exponent = resolution & 0x7f;
      const bool binary = (resolution & 0x80) != 0;
      if ((binary && exponent > 63) || (!binary && exponent > 19)) {
        fail("interface timestamp resolution " + std::to_string(resolution) + " is out of range");
        return false;
      }
      std::uint64_t units = 1;
      for (unsigned i = 0; i < exponent; ++i) units *= binary ? 2 : 10;
      iface.units_per_second = units;
    } else if (code == kOptionTsOffset && size >= 8) {
      iface.offset_seconds = static_cast<std::int64_t>(load_u64(body.data() + pos, big_endian_));
    }
    pos += (size + 3u) & ~3u;
  }
  interfaces_.push_back(iface);
  return true;
}

void RecordParser::emit(const Interface& iface, std::uint64_t timestamp,
                        std::span<const std::uint8_t> data, std::uint32_t original_length,
                        const Sink& sink) {
  RawRecord record;
  record.number = ++packets_;
  record.offset = unit_offset_;
  record.link_type = iface.link_type;
  record.big_endian = big_endian_;
  record.time_ns = to_nanoseconds(timestamp, iface.units_per_second);
  // Unsigned arithmetic: a hostile offset wraps instead of overflowing.
  record.time_ns =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(record.time_ns) +
                                static_cast<std::uint64_t>(iface.offset_seconds) * 1'000'000'000u);
  record.original_length = original_length;
  record.data = data;
  sink(record);
}

}  // namespace adbwire::capture_detail
