#include "capture/smart_socket_decoder.hpp"

#include <cstring>
#include <optional>

namespace adbwire::capture_detail {
namespace {

constexpr std::size_t kLengthDigits = 4;

std::optional<std::size_t> parse_hex4(const std::uint8_t* p) {
  std::size_t value = 0;
  for (std::size_t i = 0; i < kLengthDigits; ++i) {
    const char c = static_cast<char>(p[i]);
    value <<= 4;
    if (c >= '0' && c <= '9') {
      value |= static_cast<std::size_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value |= static_cast<std::size_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      value |= static_cast<std::size_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
  }
  return value;
}

bool is_host_service(const std::string& service) { return service.starts_with("host"); }

void consume(std::vector<std::uint8_t>& buffer, std::size_t n) {
  buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

void SmartSocketDecoder::feed(CaptureDirection direction, std::span<const std::uint8_t> bytes,
                              std::vector<Unit>& out) {
  Side& side = direction == CaptureDirection::host_to_device ? client_ : server_;
  side.buffer.insert(side.buffer.end(), bytes.begin(), bytes.end());
  if (!side.raw) {
    if (direction == CaptureDirection::host_to_device) {
      parse_client(side, out);
    } else {
      parse_server(side, out);
    }
  }
  if (side.raw) emit_raw(direction, side, out);
}

void SmartSocketDecoder::gap(CaptureDirection direction) {
  Side& side = direction == CaptureDirection::host_to_device ? client_ : server_;
  side.buffer.clear();
  side.raw = true;
}

void SmartSocketDecoder::parse_client(Side& side, std::vector<Unit>& out) {
  while (side.buffer.size() >= kLengthDigits) {
    const auto length = parse_hex4(side.buffer.data());
    if (!length) {
      side.raw = true;  // not a request: show the bytes as they are
      return;
    }
    if (side.buffer.size() < kLengthDigits + *length) return;
    Unit unit;
    unit.kind = CapturedKind::smart_request;
    unit.payload.assign(side.buffer.begin() + kLengthDigits,
                        side.buffer.begin() + static_cast<std::ptrdiff_t>(kLengthDigits + *length));
    unit.service.assign(unit.payload.begin(), unit.payload.end());
    unit.summary = preview_bytes(unit.payload, 72);
    consume(side.buffer, kLengthDigits + *length);
    pending_.push_back(unit.service);
    const bool device_service = !is_host_service(unit.service);
    if (device_service) {
      device_service_ = unit.service;
      preview_ = std::make_unique<StreamPreview>(device_service_);
    }
    out.push_back(std::move(unit));
    if (device_service) {
      side.raw = true;  // what follows is the service's own byte stream
      return;
    }
  }
}

void SmartSocketDecoder::parse_server(Side& side, std::vector<Unit>& out) {
  for (;;) {
    if (side.binary_reply > 0) {
      if (side.buffer.size() < side.binary_reply) return;
      Unit unit;
      unit.kind = CapturedKind::smart_data;
      unit.payload.assign(side.buffer.begin(),
                          side.buffer.begin() + static_cast<std::ptrdiff_t>(side.binary_reply));
      unit.summary = "transport id " + preview_bytes(unit.payload);
      consume(side.buffer, side.binary_reply);
      side.binary_reply = 0;
      out.push_back(std::move(unit));
      continue;
    }
    if (side.buffer.size() < kLengthDigits) return;
    const bool okay = std::memcmp(side.buffer.data(), "OKAY", 4) == 0;
    const bool fail = std::memcmp(side.buffer.data(), "FAIL", 4) == 0;
    if (okay || fail) {
      std::size_t used = kLengthDigits;
      Unit unit;
      unit.kind = okay ? CapturedKind::smart_okay : CapturedKind::smart_fail;
      if (fail) {
        if (side.buffer.size() < 2 * kLengthDigits) return;
        const auto length = parse_hex4(side.buffer.data() + kLengthDigits);
        if (!length) {
          side.raw = true;
          return;
        }
        if (side.buffer.size() < 2 * kLengthDigits + *length) return;
        unit.payload.assign(
            side.buffer.begin() + 2 * kLengthDigits,
            side.buffer.begin() + static_cast<std::ptrdiff_t>(2 * kLengthDigits + *length));
        unit.summary = preview_bytes(unit.payload, 72);
        used = 2 * kLengthDigits + *length;
      }
      std::string request;
      if (!pending_.empty()) {
        request = std::move(pending_.front());
        pending_.pop_front();
      }
      unit.service = request;
      consume(side.buffer, used);
      out.push_back(std::move(unit));
      if (okay && request.starts_with("host:tport:")) side.binary_reply = 8;
      if (okay && !request.empty() && !is_host_service(request)) {
        side.raw = true;
        return;
      }
      continue;
    }
    const auto length = parse_hex4(side.buffer.data());
    if (!length) {
      side.raw = true;
      return;
    }
    if (side.buffer.size() < kLengthDigits + *length) return;
    Unit unit;
    unit.kind = CapturedKind::smart_data;
    unit.payload.assign(side.buffer.begin() + kLengthDigits,
                        side.buffer.begin() + static_cast<std::ptrdiff_t>(kLengthDigits + *length));
    unit.summary = preview_bytes(unit.payload, 72);
    consume(side.buffer, kLengthDigits + *length);
    out.push_back(std::move(unit));
  }
}

void SmartSocketDecoder::emit_raw(CaptureDirection direction, Side& side, std::vector<Unit>& out) {
  if (side.buffer.empty()) return;
  Unit unit;
  unit.kind = CapturedKind::raw_data;
  unit.payload = std::move(side.buffer);
  side.buffer.clear();
  unit.service = device_service_;
  unit.summary = preview_ ? preview_->feed(direction, unit.payload) : preview_bytes(unit.payload);
  out.push_back(std::move(unit));
}

}  // namespace adbwire::capture_detail
