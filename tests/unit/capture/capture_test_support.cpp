#include "unit/capture/capture_test_support.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/message.hpp"

namespace adbwire::capture_test {
namespace {

void put16(Bytes& out, std::uint16_t v, bool big) {
  big ? protocol::append_be16(out, v) : protocol::append_le16(out, v);
}

void put32(Bytes& out, std::uint32_t v, bool big) {
  big ? protocol::append_be32(out, v) : protocol::append_le32(out, v);
}

void put64(Bytes& out, std::uint64_t v, bool big) {
  if (big) {
    put32(out, static_cast<std::uint32_t>(v >> 32), true);
    put32(out, static_cast<std::uint32_t>(v), true);
  } else {
    put32(out, static_cast<std::uint32_t>(v), false);
    put32(out, static_cast<std::uint32_t>(v >> 32), false);
  }
}

void pcapng_block(Bytes& out, std::uint32_t type, const Bytes& body, bool big) {
  put32(out, type, big);
  put32(out, static_cast<std::uint32_t>(body.size() + 12), big);
  out.insert(out.end(), body.begin(), body.end());
  put32(out, static_cast<std::uint32_t>(body.size() + 12), big);
}

std::uint16_t ip_checksum(std::span<const std::uint8_t> header) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < header.size(); i += 2)
    sum += static_cast<std::uint32_t>(header[i] << 8 | header[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

}  // namespace

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

Bytes adb_message(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                  std::string_view payload) {
  Bytes out;
  const Bytes data = bytes_of(payload);
  protocol::append_message(out, command, arg0, arg1, data, false);
  return out;
}

Bytes pcap_file(std::uint32_t link_type, const std::vector<Packet>& packets, bool big,
                bool nanoseconds) {
  Bytes out;
  put32(out, nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4, big);
  put16(out, 2, big);
  put16(out, 4, big);
  put32(out, 0, big);
  put32(out, 0, big);
  put32(out, 262144, big);
  put32(out, link_type, big);
  for (const Packet& p : packets) {
    const std::uint64_t unit = nanoseconds ? 1 : 1000;
    put32(out, static_cast<std::uint32_t>(p.time_ns / 1'000'000'000), big);
    put32(out, static_cast<std::uint32_t>(p.time_ns % 1'000'000'000 / unit), big);
    put32(out, static_cast<std::uint32_t>(p.data.size()), big);
    put32(out, static_cast<std::uint32_t>(p.data.size()), big);
    out.insert(out.end(), p.data.begin(), p.data.end());
  }
  return out;
}

Bytes pcapng_file(const std::vector<PcapngInterface>& interfaces,
                  const std::vector<Packet>& packets, bool big) {
  Bytes out;
  Bytes body;
  put32(body, 0x1a2b3c4d, big);
  put16(body, 1, big);
  put16(body, 0, big);
  put64(body, ~std::uint64_t{0}, big);
  pcapng_block(out, 0x0a0d0d0a, body, big);
  for (const auto& iface : interfaces) {
    body.clear();
    put16(body, iface.link_type, big);
    put16(body, 0, big);
    put32(body, 0, big);
    if (iface.tsresol >= 0) {
      put16(body, 9, big);
      put16(body, 1, big);
      body.insert(body.end(), {static_cast<std::uint8_t>(iface.tsresol), 0, 0, 0});
      put32(body, 0, big);
    }
    pcapng_block(out, 1, body, big);
  }
  for (const Packet& p : packets) {
    const int resol = interfaces.at(p.interface).tsresol;
    std::uint64_t ticks = p.time_ns / 1000;  // default microseconds
    if (resol == 9) ticks = p.time_ns;
    if (resol == 3) ticks = p.time_ns / 1'000'000;
    body.clear();
    put32(body, p.interface, big);
    put32(body, static_cast<std::uint32_t>(ticks >> 32), big);
    put32(body, static_cast<std::uint32_t>(ticks), big);
    put32(body, static_cast<std::uint32_t>(p.data.size()), big);
    put32(body, static_cast<std::uint32_t>(p.data.size()), big);
    body.insert(body.end(), p.data.begin(), p.data.end());
    while (body.size() % 4 != 0) body.push_back(0);
    pcapng_block(out, 6, body, big);
  }
  return out;
}

Bytes ip_tcp(const TcpFrame& f) {
  Bytes tcp;
  put16(tcp, f.src_port, true);
  put16(tcp, f.dst_port, true);
  put32(tcp, f.seq, true);
  put32(tcp, 0, true);
  tcp.push_back(0x50);
  tcp.push_back(f.flags);
  put16(tcp, 65535, true);
  put32(tcp, 0, true);  // checksum (not checked by readers), urgent pointer
  tcp.insert(tcp.end(), f.payload.begin(), f.payload.end());
  Bytes ip;
  if (f.ipv6) {
    ip = {0x60, 0, 0, 0};
    put16(ip, static_cast<std::uint16_t>(tcp.size()), true);
    ip.push_back(6);
    ip.push_back(64);
    for (std::uint8_t last : {f.src_ip, f.dst_ip}) {
      Bytes address(16, 0);
      address[0] = 0xfd;
      address[15] = last;
      ip.insert(ip.end(), address.begin(), address.end());
    }
  } else {
    ip = {0x45, 0};
    put16(ip, static_cast<std::uint16_t>(20 + tcp.size()), true);
    put32(ip, 0x00014000, true);
    ip.insert(ip.end(), {64, 6, 0, 0, 10, 0, 0, f.src_ip, 10, 0, 0, f.dst_ip});
    const std::uint16_t sum = ip_checksum(ip);
    ip[10] = static_cast<std::uint8_t>(sum >> 8);
    ip[11] = static_cast<std::uint8_t>(sum);
  }
  ip.insert(ip.end(), tcp.begin(), tcp.end());
  return ip;
}

Bytes ethernet_tcp(const TcpFrame& f) {
  Bytes out = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
  put16(out, f.ipv6 ? 0x86dd : 0x0800, true);
  const Bytes ip = ip_tcp(f);
  out.insert(out.end(), ip.begin(), ip.end());
  return out;
}

Bytes usbmon(char event, std::uint8_t endpoint, std::uint8_t device,
             std::span<const std::uint8_t> data, bool mmapped) {
  Bytes out;
  put64(out, 0x1234, false);
  out.push_back(static_cast<std::uint8_t>(event));
  out.push_back(3);
  out.push_back(endpoint);
  out.push_back(device);
  put16(out, 1, false);
  out.push_back('-');
  out.push_back(data.empty() ? '<' : 0);
  put64(out, 0, false);
  put32(out, 0, false);
  put32(out, 0, false);
  put32(out, static_cast<std::uint32_t>(data.size()), false);
  put32(out, static_cast<std::uint32_t>(data.size()), false);
  put64(out, 0, false);
  if (mmapped) out.resize(out.size() + 16, 0);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes usbpcap(bool completion, std::uint8_t endpoint, std::uint16_t device,
              std::span<const std::uint8_t> data) {
  Bytes out;
  put16(out, 27, false);
  put64(out, 0x99, false);
  put32(out, 0, false);
  put16(out, 0x0009, false);  // URB_FUNCTION_BULK_OR_INTERRUPT_TRANSFER
  out.push_back(completion ? 1 : 0);
  put16(out, 1, false);
  put16(out, device, false);
  out.push_back(endpoint);
  out.push_back(3);
  put32(out, static_cast<std::uint32_t>(data.size()), false);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Decoded decode(std::span<const std::uint8_t> file, std::size_t chunk) {
  Decoded result;
  CaptureDecoder decoder;
  if (chunk == 0) chunk = file.size() + 1;
  for (std::size_t pos = 0; pos < file.size() && !result.ec; pos += chunk) {
    result.ec =
        decoder.feed(file.subspan(pos, std::min(chunk, file.size() - pos)), result.messages);
  }
  const std::error_code end = decoder.finish(result.messages);
  if (!result.ec) result.ec = end;
  result.fault = decoder.fault();
  result.stats = decoder.stats();
  result.connections = decoder.connections();
  return result;
}

std::vector<std::string> adb_lines(const std::vector<CapturedMessage>& messages) {
  std::vector<std::string> lines;
  for (const auto& m : messages) {
    if (m.kind != CapturedKind::adb) continue;
    char text[96];
    std::snprintf(text, sizeof text, "%s %08x %08x %zu",
                  std::string(protocol::command_name(m.message.command)).c_str(), m.message.arg0,
                  m.message.arg1, m.message.payload.size());
    lines.emplace_back(text);
  }
  return lines;
}

std::string run_command(const std::string& command, int& exit_status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    exit_status = -1;
    return output;
  }
  std::array<char, 4096> buffer;
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), got);
  const int status = pclose(pipe);
  exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

bool have_tshark() {
  int status = 0;
  run_command("command -v tshark >/dev/null 2>&1", status);
  return status == 0;
}

TempDir::TempDir() {
  std::random_device random;
  path_ = std::filesystem::temp_directory_path() / ("adbwire-capture-" + std::to_string(random()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

Bytes read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace adbwire::capture_test
