// Scripted peers for the Session tests (session_test.cpp, session_streams_test.cpp): a host and
// a device wired to each other in memory, and sessions brought online by hand-made messages.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "adbwire/protocol/session.hpp"
#include "test_support.hpp"

namespace adbwire::protocol::test {

inline std::vector<std::uint8_t> pattern(std::size_t size, std::uint32_t seed) {
  std::vector<std::uint8_t> out(size);
  for (std::size_t i = 0; i < size; ++i)
    out[i] = static_cast<std::uint8_t>((i * 31 + seed * 7) ^ (i >> 8));
  return out;
}

inline const std::vector<std::uint8_t> kToken = pattern(kAuthTokenSize, 1);

// A host and a device session wired to each other in memory.
struct Pair {
  Session host;
  Session device;

  Pair(SessionOptions h, SessionOptions d) : host(std::move(h)), device(std::move(d)) {}

  // Moves bytes both ways until both sides are quiet.
  void exchange() {
    for (;;) {
      const std::vector<std::uint8_t> h = take_bytes(host);
      const std::vector<std::uint8_t> d = take_bytes(device);
      if (h.empty() && d.empty()) return;
      if (!h.empty()) {
        ASSERT_FALSE(device.receive(h)) << device.error_detail();
      }
      if (!d.empty()) {
        ASSERT_FALSE(host.receive(d)) << host.error_detail();
      }
    }
  }
};

inline std::vector<Event::Type> types(const std::vector<Event>& events) {
  std::vector<Event::Type> out;
  for (const Event& e : events) out.push_back(e.type);
  return out;
}

// A host whose scripted device answered CNXN directly.
inline Session online_host(std::uint32_t device_max_payload = kMaxPayloadV1,
                           std::uint32_t window = 0,
                           std::string_view device_banner = "device::features=shell_v2") {
  SessionOptions options = host_options();
  options.delayed_ack_window = window;
  Session host(std::move(options));
  host.start();
  take_bytes(host);
  EXPECT_FALSE(
      host.receive(wire(kCommandCnxn, kVersion, device_max_payload, bytes(device_banner))));
  EXPECT_EQ(host.state(), SessionState::online);
  take_events(host);
  return host;
}

// Opens `service` on a scripted host and has the device accept it as peer id `remote`.
inline std::uint32_t open_ready(Session& host, std::uint32_t remote,
                                std::span<const std::uint8_t> okay = {}) {
  std::error_code error;
  const std::uint32_t id = host.open_stream("shell:", error);
  EXPECT_FALSE(error);
  take_output(host);
  EXPECT_FALSE(host.receive(wire(kCommandOkay, remote, id, okay))) << host.error_detail();
  const std::vector<Event> events = take_events(host);
  EXPECT_EQ(types(events), std::vector<Event::Type>{Event::Type::stream_ready});
  return id;
}

// A device session that the scripted host connected to, without auth.
inline Session online_device(std::uint32_t window = 0, std::size_t max_streams = 4096,
                             std::string_view host_banner = "host::features=shell_v2") {
  SessionOptions options = device_options();
  options.delayed_ack_window = window;
  options.max_streams = max_streams;
  Session device(std::move(options));
  EXPECT_FALSE(device.receive(wire(kCommandCnxn, kVersion, kMaxPayload, bytes(host_banner), true)));
  EXPECT_EQ(device.state(), SessionState::online);
  take_events(device);
  take_bytes(device);
  return device;
}

}  // namespace adbwire::protocol::test
