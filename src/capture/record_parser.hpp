// pcap / pcapng record layer: file bytes in (split anywhere), packet records out. Sans-IO.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/capture.hpp"

namespace adbwire::capture_detail {

// One packet record. data points into the parser's buffer: valid only during the callback.
struct RawRecord {
  std::uint64_t number = 0;  // 1-based, as Wireshark numbers frames
  std::uint64_t offset = 0;  // file offset of the record (pcap) or block (pcapng)
  std::uint32_t link_type = 0;
  bool big_endian = false;   // byte order of the section (usbmon headers follow it)
  std::int64_t time_ns = 0;  // since the Unix epoch
  std::uint32_t original_length = 0;
  std::span<const std::uint8_t> data;
};

// Blocks larger than this are treated as corrupt rather than buffered: it bounds memory.
inline constexpr std::uint32_t kMaxBlockSize = 128u * 1024 * 1024;

class RecordParser {
 public:
  using Sink = std::function<void(const RawRecord&)>;

  // Consumes all of bytes and calls sink for each complete packet record. parse_error (see
  // fault()) on a malformed file; the parser then stays failed.
  std::error_code feed(std::span<const std::uint8_t> bytes, const Sink& sink);

  // End of input: parse_error if the file ends inside the header or a record.
  std::error_code finish();

  const CaptureFault& fault() const noexcept { return fault_; }

 private:
  enum class Format { unknown, pcap, pcapng };
  struct Interface {
    std::uint32_t link_type = 0;
    std::uint32_t snap_length = 0;
    std::uint64_t units_per_second = 1'000'000;
    std::int64_t offset_seconds = 0;
  };

  // Each returns the bytes one unit needs (0 = consumed nothing, need more) or sets fault_.
  std::size_t parse_unit(std::span<const std::uint8_t> in, const Sink& sink);
  std::size_t parse_pcap_header(std::span<const std::uint8_t> in);
  std::size_t parse_pcap_record(std::span<const std::uint8_t> in, const Sink& sink);
  std::size_t parse_pcapng_block(std::span<const std::uint8_t> in, const Sink& sink);
  bool parse_section_header(std::span<const std::uint8_t> block);
  bool parse_interface(std::span<const std::uint8_t> body);
  void emit(const Interface& iface, std::uint64_t timestamp, std::span<const std::uint8_t> data,
            std::uint32_t original_length, const Sink& sink);
  std::size_t fail(std::string detail);

  Format format_ = Format::unknown;
  bool big_endian_ = false;
  bool failed_ = false;
  bool header_done_ = false;
  std::uint32_t pcap_link_type_ = 0;
  std::uint64_t pcap_units_ = 1'000'000;
  std::vector<Interface> interfaces_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t buffer_offset_ = 0;  // file offset of buffer_[0]
  std::uint64_t unit_offset_ = 0;    // file offset of the unit being parsed
  std::size_t needed_ = 0;           // bytes the unit at buffer_[0] still waits for
  std::uint64_t packets_ = 0;
  CaptureFault fault_;
};

}  // namespace adbwire::capture_detail
