// Helpers shared by the protocol tests: wire bytes by hand, decoding a session's output, and
// draining its events.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/message.hpp"
#include "adbwire/protocol/session.hpp"

namespace adbwire::protocol::test {

inline std::vector<std::uint8_t> bytes(std::string_view text) { return {text.begin(), text.end()}; }

inline std::string text(std::span<const std::uint8_t> data) { return {data.begin(), data.end()}; }

inline std::vector<std::uint8_t> wire(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                                      std::span<const std::uint8_t> payload = {},
                                      bool with_checksum = false) {
  std::vector<std::uint8_t> out;
  append_message(out, command, arg0, arg1, payload, with_checksum);
  return out;
}

inline std::vector<std::uint8_t> le32(std::uint32_t value) {
  std::vector<std::uint8_t> out;
  append_le32(out, value);
  return out;
}

// Decodes a complete byte stream; fails the test on a decode error or a partial tail.
inline std::vector<Message> decode(std::span<const std::uint8_t> data) {
  MessageReader reader(kMaxPayload);
  std::vector<Message> out;
  const std::error_code error = reader.feed(data, out);
  EXPECT_FALSE(error) << reader.error_detail();
  EXPECT_TRUE(reader.at_boundary());
  return out;
}

// The raw header of every message in a byte stream, for checksum assertions.
inline std::vector<Header> headers(std::span<const std::uint8_t> data) {
  std::vector<Header> out;
  while (data.size() >= kHeaderSize) {
    const Header header = decode_header(data.first<kHeaderSize>());
    out.push_back(header);
    data = data.subspan(kHeaderSize + header.data_length);
  }
  return out;
}

inline std::vector<std::uint8_t> take_bytes(Session& session) {
  const auto pending = session.pending_output();
  std::vector<std::uint8_t> out(pending.begin(), pending.end());
  session.consume_output(out.size());
  return out;
}

inline std::vector<Message> take_output(Session& session) { return decode(take_bytes(session)); }

inline std::vector<Event> take_events(Session& session) {
  std::vector<Event> out;
  Event event;
  while (session.next_event(event)) out.push_back(event);
  return out;
}

inline SessionOptions host_options() {
  SessionOptions options;
  options.role = Role::host;
  options.banner.system_type = "host";
  options.banner.features = host_features();
  return options;
}

inline SessionOptions device_options() {
  SessionOptions options;
  options.role = Role::device;
  options.banner.system_type = "device";
  options.banner.properties = {{"ro.product.name", "sdk_phone"},
                               {"ro.product.model", "Virtual"},
                               {"ro.product.device", "vdev"}};
  options.banner.features = {"shell_v2", "cmd", "stat_v2"};
  return options;
}

}  // namespace adbwire::protocol::test
