#include "adbwire/capture_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/message.hpp"
#include "base/private_files.hpp"
#include "capture/link_layer.hpp"

namespace adbwire {

using protocol::append_be16;
using protocol::append_be32;
using protocol::append_le16;
using protocol::append_le32;
using protocol::append_le64;
using protocol::store_be16;

namespace {

constexpr std::uint32_t kSectionHeaderBlock = 0x0a0d0d0a;
constexpr std::uint32_t kInterfaceBlock = 1;
constexpr std::uint32_t kEnhancedPacketBlock = 6;
constexpr std::uint16_t kOptionApplication = 4;  // shb_userappl
constexpr std::uint16_t kOptionName = 2;         // if_name
constexpr std::uint16_t kOptionTsResol = 9;      // if_tsresol
constexpr std::uint8_t kNanoseconds = 9;
constexpr std::size_t kUsbmonHeader = 64;
constexpr std::size_t kMaxUrb = 64 * 1024;
constexpr std::uint8_t kBulkOut = 0x01;
constexpr std::uint8_t kBulkIn = 0x81;
constexpr std::int32_t kUrbInProgress = -115;  // -EINPROGRESS, as usbmon reports submissions

void append_option(std::vector<std::uint8_t>& out, std::uint16_t code,
                   std::span<const std::uint8_t> value) {
  append_le16(out, code);
  append_le16(out, static_cast<std::uint16_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
  while (out.size() % 4 != 0) out.push_back(0);
}

void append_text_option(std::vector<std::uint8_t>& out, std::uint16_t code, std::string_view text) {
  append_option(out, code,
                std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// Wraps body as one pcapng block (type, total length, body, total length).
void append_block(std::vector<std::uint8_t>& out, std::uint32_t type,
                  const std::vector<std::uint8_t>& body) {
  const auto total = static_cast<std::uint32_t>(12 + body.size());
  append_le32(out, type);
  append_le32(out, total);
  out.insert(out.end(), body.begin(), body.end());
  append_le32(out, total);
}

// RFC 1071 ones' complement sum, continued across calls.
std::uint32_t sum16(std::span<const std::uint8_t> bytes, std::uint32_t sum) {
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2)
    sum += static_cast<std::uint32_t>(bytes[i] << 8 | bytes[i + 1]);
  if (bytes.size() % 2 != 0) sum += static_cast<std::uint32_t>(bytes.back() << 8);
  return sum;
}

std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

std::uint64_t nanoseconds(CaptureTime time) {
  return static_cast<std::uint64_t>(time.time_since_epoch().count());
}

}  // namespace

CaptureEncoder::CaptureEncoder(CaptureWriterOptions options) : options_(options) {}

void CaptureEncoder::begin(CaptureTime time, std::vector<std::uint8_t>& out) {
  std::vector<std::uint8_t> body;
  append_le32(body, 0x1a2b3c4d);  // byte-order magic
  append_le16(body, 1);
  append_le16(body, 0);
  append_le64(body, ~std::uint64_t{0});  // section length not known in advance
  append_text_option(body, kOptionApplication, "adbwire");
  append_le32(body, 0);  // opt_endofopt
  append_block(out, kSectionHeaderBlock, body);

  body.clear();
  append_le16(body, static_cast<std::uint16_t>(options_.link == CaptureLink::tcp
                                                   ? capture_detail::kLinkEthernet
                                                   : capture_detail::kLinkUsbLinuxMmapped));
  append_le16(body, 0);
  append_le32(body, 0);  // no snap length: every byte is recorded
  append_text_option(body, kOptionName, "adbwire");
  append_option(body, kOptionTsResol, std::span(&kNanoseconds, 1));
  append_le32(body, 0);
  append_block(out, kInterfaceBlock, body);
  begin_connection(time, out);
}

void CaptureEncoder::begin_connection(CaptureTime time, std::vector<std::uint8_t>& out) {
  if (options_.link == CaptureLink::tcp) {
    tcp_frame(true, capture_detail::kTcpSyn, {}, time, out);
    ++host_sequence_;
    tcp_frame(false, capture_detail::kTcpSyn | capture_detail::kTcpAck, {}, time, out);
    ++device_sequence_;
    tcp_frame(true, capture_detail::kTcpAck, {}, time, out);
  }
}

void CaptureEncoder::record(CaptureDirection direction, std::span<const std::uint8_t> bytes,
                            CaptureTime time, std::vector<std::uint8_t>& out) {
  const bool from_host = direction == CaptureDirection::host_to_device;
  const bool tcp = options_.link == CaptureLink::tcp;
  Framing& framing = framing_[from_host ? 0 : 1];
  while (!bytes.empty()) {
    // The framing walks only what this frame can carry, so a large payload split over several
    // frames leaves it at the right place for the message after it.
    const auto limit = bytes.first(std::min(bytes.size(), tcp ? kMaxSegment : kMaxUrb));
    const auto chunk = bytes.first(next_piece(framing, limit, !tcp));
    if (tcp) {
      constexpr std::uint8_t kPshAck = 0x08 | capture_detail::kTcpAck;
      tcp_frame(from_host, kPshAck, chunk, time, out);
      (from_host ? host_sequence_ : device_sequence_) += static_cast<std::uint32_t>(chunk.size());
    } else {
      // OUT data is seen when submitted, IN data when completed (as usbmon shows them).
      const auto length = static_cast<std::uint32_t>(chunk.size());
      usb_urb(true, !from_host, from_host ? chunk : std::span<const std::uint8_t>{}, length, time,
              out);
      usb_urb(false, !from_host, from_host ? std::span<const std::uint8_t>{} : chunk, length, time,
              out);
      ++urb_id_;
    }
    bytes = bytes.subspan(chunk.size());
  }
}

std::size_t CaptureEncoder::next_piece(Framing& framing, std::span<const std::uint8_t> bytes,
                                       bool split_header) {
  if (framing.lost) return bytes.size();
  std::size_t used = 0;
  if (framing.payload_left == 0) {
    const std::size_t take = std::min(bytes.size(), framing.header.size() - framing.header_filled);
    std::copy_n(bytes.begin(), take,
                framing.header.begin() + static_cast<std::ptrdiff_t>(framing.header_filled));
    framing.header_filled += take;
    used = take;
    if (framing.header_filled < framing.header.size()) return used;
    framing.header_filled = 0;
    const protocol::Header header = protocol::decode_header(framing.header);
    if (header.magic != (header.command ^ 0xffffffffu)) {
      framing.lost = true;
      return bytes.size();
    }
    framing.payload_left = header.data_length;
    if (split_header || framing.payload_left == 0) return used;
  }
  const auto take =
      static_cast<std::size_t>(std::min<std::uint64_t>(framing.payload_left, bytes.size() - used));
  framing.payload_left -= take;
  return used + take;
}

void CaptureEncoder::end(CaptureTime time, std::vector<std::uint8_t>& out) {
  if (options_.link != CaptureLink::tcp) return;
  constexpr std::uint8_t kFinAck = capture_detail::kTcpFin | capture_detail::kTcpAck;
  tcp_frame(true, kFinAck, {}, time, out);
  ++host_sequence_;
  tcp_frame(false, kFinAck, {}, time, out);
  ++device_sequence_;
  tcp_frame(true, capture_detail::kTcpAck, {}, time, out);
}

void CaptureEncoder::tcp_frame(bool from_host, std::uint8_t flags,
                               std::span<const std::uint8_t> payload, CaptureTime time,
                               std::vector<std::uint8_t>& out) {
  const auto& source = from_host ? options_.host_address : options_.device_address;
  const auto& destination = from_host ? options_.device_address : options_.host_address;
  std::vector<std::uint8_t> frame;
  frame.reserve(54 + payload.size());
  // Ethernet: locally administered addresses, host ...:01, device ...:02.
  const std::uint8_t host_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
  const std::uint8_t device_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
  frame.insert(frame.end(), from_host ? device_mac : host_mac,
               (from_host ? device_mac : host_mac) + 6);
  frame.insert(frame.end(), from_host ? host_mac : device_mac,
               (from_host ? host_mac : device_mac) + 6);
  append_be16(frame, 0x0800);

  const std::size_t ip = frame.size();
  append_be16(frame, 0x4500);
  append_be16(frame, static_cast<std::uint16_t>(40 + payload.size()));
  append_be16(frame, ip_id_++);
  append_be16(frame, 0x4000);  // don't fragment
  frame.push_back(64);         // TTL
  frame.push_back(6);          // TCP
  append_be16(frame, 0);       // checksum, filled below
  frame.insert(frame.end(), source.begin(), source.end());
  frame.insert(frame.end(), destination.begin(), destination.end());
  store_be16(frame.data() + ip + 10, fold(sum16(std::span(frame).subspan(ip, 20), 0)));

  const std::size_t tcp = frame.size();
  append_be16(frame, from_host ? options_.host_port : options_.device_port);
  append_be16(frame, from_host ? options_.device_port : options_.host_port);
  append_be32(frame, from_host ? host_sequence_ : device_sequence_);
  const bool has_ack = (flags & capture_detail::kTcpAck) != 0;
  append_be32(frame, has_ack ? (from_host ? device_sequence_ : host_sequence_) : 0);
  frame.push_back(0x50);  // 20-byte header
  frame.push_back(flags);
  append_be16(frame, 0xffff);  // window
  append_be16(frame, 0);       // checksum, filled below
  append_be16(frame, 0);       // urgent pointer
  frame.insert(frame.end(), payload.begin(), payload.end());
  std::vector<std::uint8_t> pseudo(source.begin(), source.end());
  pseudo.insert(pseudo.end(), destination.begin(), destination.end());
  pseudo.push_back(0);
  pseudo.push_back(6);
  append_be16(pseudo, static_cast<std::uint16_t>(20 + payload.size()));
  const std::uint32_t sum = sum16(std::span(frame).subspan(tcp), sum16(pseudo, 0));
  store_be16(frame.data() + tcp + 16, fold(sum));
  packet_block(frame, time, out);
}

void CaptureEncoder::usb_urb(bool submit, bool in, std::span<const std::uint8_t> data,
                             std::uint32_t length, CaptureTime time,
                             std::vector<std::uint8_t>& out) {
  const std::uint64_t ns = nanoseconds(time);
  std::vector<std::uint8_t> frame;
  frame.reserve(kUsbmonHeader + data.size());
  append_le64(frame, urb_id_);
  frame.push_back(submit ? 'S' : 'C');
  frame.push_back(3);  // bulk
  frame.push_back(in ? kBulkIn : kBulkOut);
  frame.push_back(options_.usb_device);
  append_le16(frame, options_.usb_bus);
  frame.push_back('-');                                  // no setup packet
  frame.push_back(data.empty() ? (in ? '<' : '>') : 0);  // 0: data present
  append_le64(frame, ns / 1'000'000'000);
  append_le32(frame, static_cast<std::uint32_t>(ns % 1'000'000'000 / 1000));
  append_le32(frame, static_cast<std::uint32_t>(submit ? kUrbInProgress : 0));
  append_le32(frame, length);
  append_le32(frame, static_cast<std::uint32_t>(data.size()));
  append_le64(frame, 0);  // setup bytes
  append_le32(frame, 0);  // interval
  append_le32(frame, 0);  // start frame
  append_le32(frame, 0);  // transfer flags
  append_le32(frame, 0);  // iso descriptors
  frame.insert(frame.end(), data.begin(), data.end());
  packet_block(frame, time, out);
}

void CaptureEncoder::packet_block(std::span<const std::uint8_t> frame, CaptureTime time,
                                  std::vector<std::uint8_t>& out) {
  const std::uint64_t ns = nanoseconds(time);
  std::vector<std::uint8_t> body;
  body.reserve(20 + frame.size() + 3);
  append_le32(body, 0);  // interface 0
  append_le32(body, static_cast<std::uint32_t>(ns >> 32));
  append_le32(body, static_cast<std::uint32_t>(ns));
  append_le32(body, static_cast<std::uint32_t>(frame.size()));
  append_le32(body, static_cast<std::uint32_t>(frame.size()));
  body.insert(body.end(), frame.begin(), frame.end());
  while (body.size() % 4 != 0) body.push_back(0);
  append_block(out, kEnhancedPacketBlock, body);
}

struct CaptureWriter::Impl {
  std::FILE* file = nullptr;
  std::filesystem::path path;
  CaptureEncoder encoder;
  std::vector<std::uint8_t> buffer;

  bool write(std::error_code& ec) {
    const bool ok = std::fwrite(buffer.data(), 1, buffer.size(), file) == buffer.size() &&
                    std::fflush(file) == 0;
    buffer.clear();
    if (!ok) ec = errc::io_error;
    return ok;
  }
};

CaptureWriter::CaptureWriter() = default;
CaptureWriter::CaptureWriter(CaptureWriter&&) noexcept = default;
CaptureWriter& CaptureWriter::operator=(CaptureWriter&& other) noexcept {
  if (this != &other) {
    std::error_code ignored;
    close(ignored);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

CaptureWriter::~CaptureWriter() {
  std::error_code ignored;
  close(ignored);
}

bool CaptureWriter::is_open() const noexcept { return impl_ && impl_->file; }

void CaptureWriter::open(const std::filesystem::path& path, const CaptureWriterOptions& options,
                         std::error_code& ec) {
  ec.clear();
  if (is_open()) {
    ec = errc::invalid_argument;
    return;
  }
  detail::Failure failure;
  const int fd = detail::create_private_file(path, failure);
  std::FILE* file = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (!file) {
    if (fd >= 0) ::close(fd);
    ec = failure ? failure.code : make_error_code(errc::io_error);
    return;
  }
  impl_ = std::make_unique<Impl>(Impl{file, path, CaptureEncoder(options), {}});
  impl_->encoder.begin(std::chrono::system_clock::now(), impl_->buffer);
  if (!impl_->write(ec)) {
    std::fclose(impl_->file);
    impl_.reset();
  }
}

void CaptureWriter::open(const std::filesystem::path& path, const CaptureWriterOptions& options) {
  std::error_code ec;
  open(path, options, ec);
  throw_if_error(ec,
                 ec == errc::invalid_argument
                     ? "capture writer is already open; close it before opening " + path.string()
                     : "cannot create capture " + path.string() + ": " + std::strerror(errno));
}

void CaptureWriter::record(CaptureDirection direction, std::span<const std::uint8_t> bytes,
                           CaptureTime time, std::error_code& ec) {
  ec.clear();
  if (!is_open()) {
    ec = errc::closed;
    return;
  }
  impl_->encoder.record(direction, bytes, time, impl_->buffer);
  impl_->write(ec);
}

void CaptureWriter::record(CaptureDirection direction, std::span<const std::uint8_t> bytes,
                           CaptureTime time) {
  std::error_code ec;
  record(direction, bytes, time, ec);
  throw_if_error(ec, ec == errc::closed
                         ? std::string("capture writer is not open: call open() first")
                         : "cannot write capture " + impl_->path.string() + " (disk full?)");
}

void CaptureWriter::close(std::error_code& ec) {
  ec.clear();
  if (!is_open()) return;
  impl_->encoder.end(std::chrono::system_clock::now(), impl_->buffer);
  impl_->write(ec);
  if (std::fclose(impl_->file) != 0) ec = errc::io_error;
  impl_->file = nullptr;
}

void CaptureWriter::close() {
  std::error_code ec;
  const std::string path = impl_ ? impl_->path.string() : std::string();
  close(ec);
  throw_if_error(ec, "cannot finish capture " + path + " (disk full?)");
}

}  // namespace adbwire
