// adb server ("smart socket", port 5037) traffic of one TCP connection: hex4-length requests,
// OKAY/FAIL replies, hex4-length reply data, then raw bytes once a device service is open.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adbwire/capture.hpp"
#include "capture/payload_preview.hpp"

namespace adbwire::capture_detail {

class SmartSocketDecoder {
 public:
  struct Unit {
    CapturedKind kind = CapturedKind::smart_request;
    std::vector<std::uint8_t> payload;
    std::string service;
    std::string summary;
  };

  // Consumes bytes of one direction; appends every unit completed.
  void feed(CaptureDirection direction, std::span<const std::uint8_t> bytes,
            std::vector<Unit>& out);

  // Bytes of that direction were lost: line framing cannot be trusted, so it turns raw.
  void gap(CaptureDirection direction);

 private:
  struct Side {
    std::vector<std::uint8_t> buffer;
    bool raw = false;
    std::size_t binary_reply = 0;  // host:tport: answers OKAY + an 8-byte transport id
  };
  void parse_client(Side& side, std::vector<Unit>& out);
  void parse_server(Side& side, std::vector<Unit>& out);
  void emit_raw(CaptureDirection direction, Side& side, std::vector<Unit>& out);

  Side client_;
  Side server_;
  std::deque<std::string> pending_;  // requests still waiting for their status
  std::string device_service_;
  std::unique_ptr<StreamPreview> preview_;
};

}  // namespace adbwire::capture_detail
