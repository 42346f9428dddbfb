// The replay matcher's rules on scripted message sequences (no sockets): what must match
// strictly, and the host timing that may differ (replay_script.hpp).
#include "capture/replay_script.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/message.hpp"

namespace adbwire::capture_detail {
namespace {

using namespace protocol;

constexpr auto kHost = CaptureDirection::host_to_device;
constexpr auto kDevice = CaptureDirection::device_to_host;

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }
const std::vector<std::uint8_t> kCloseStdin = {4, 0, 0, 0, 0};

class Script {
 public:
  Script& add(CaptureDirection direction, std::uint32_t command, std::uint32_t arg0,
              std::uint32_t arg1, std::vector<std::uint8_t> payload = {}) {
    Message m;
    m.command = command;
    m.arg0 = arg0;
    m.arg1 = arg1;
    m.payload = std::move(payload);
    steps_.push_back({direction, std::move(m), steps_.size() + 1});
    return *this;
  }
  ReplayScript build() const { return ReplayScript(steps_, "test.pcapng"); }

 private:
  std::vector<ReplayStep> steps_;
};

// Feeds one live host message; true when it matched.
bool send(ReplayScript& script, std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
          const std::vector<std::uint8_t>& payload = {}) {
  std::vector<std::uint8_t> wire;
  append_message(wire, command, arg0, arg1, payload, true);
  return script.host_sent(wire);
}

// The device messages released so far, as (command, arg0, arg1).
std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> device_output(
    ReplayScript& script) {
  std::vector<std::uint8_t> wire;
  script.take_device_output(wire);
  MessageReader reader;
  std::vector<Message> messages;
  EXPECT_FALSE(reader.feed(wire, messages));
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> out;
  for (const Message& m : messages) out.emplace_back(m.command, m.arg0, m.arg1);
  return out;
}

// A shell v2 session as adb recorded it: host stream 10, device stream 1.
Script shell_session(bool with_close_stdin) {
  Script s;
  s.add(kHost, kCommandOpen, 10, 0, bytes_of("shell,v2,raw:echo hi"));
  s.add(kDevice, kCommandOkay, 1, 10);
  s.add(kDevice, kCommandWrte, 1, 10, {1, 3, 0, 0, 0, 'h', 'i', '\n'});
  s.add(kHost, kCommandOkay, 10, 1);
  if (with_close_stdin) s.add(kHost, kCommandWrte, 10, 1, kCloseStdin);
  s.add(kDevice, kCommandWrte, 1, 10, {3, 1, 0, 0, 0, 0});
  s.add(kDevice, kCommandClse, 1, 10);
  s.add(kHost, kCommandOkay, 10, 1);
  s.add(kHost, kCommandClse, 10, 1);
  return s;
}

TEST(ReplayScript, LiveIdsAreMappedAndDeviceMessagesNameThem) {
  ReplayScript script = shell_session(false).build();
  EXPECT_TRUE(device_output(script).empty());  // nothing before the OPEN
  ASSERT_TRUE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));
  const auto out = device_output(script);
  ASSERT_EQ(out.size(), 2u);  // OKAY and the first WRTE; the next WRTE waits for its credit
  EXPECT_EQ(out[0], std::make_tuple(kCommandOkay, 1u, 7u));
  ASSERT_TRUE(send(script, kCommandOkay, 7, 1));
  EXPECT_EQ(device_output(script).size(), 2u);  // exit WRTE and CLSE
  ASSERT_TRUE(send(script, kCommandClse, 7, 1));
  EXPECT_EQ(script.host_messages_left(), 0u) << script.next_expected();
}

TEST(ReplayScript, CloseStdinIsOptionalEitherWay) {
  {
    SCOPED_TRACE("the capture has none; the live host sends one");
    ReplayScript script = shell_session(false).build();
    ASSERT_TRUE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));
    ASSERT_TRUE(send(script, kCommandWrte, 7, 1, kCloseStdin)) << script.mismatch();
    ASSERT_TRUE(send(script, kCommandOkay, 7, 1));
    ASSERT_TRUE(send(script, kCommandClse, 7, 1));
    EXPECT_EQ(script.host_messages_left(), 0u);
  }
  {
    SCOPED_TRACE("the capture has one; the live host sends none");
    ReplayScript script = shell_session(true).build();
    ASSERT_TRUE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));
    device_output(script);
    ASSERT_TRUE(send(script, kCommandOkay, 7, 1));
    // The exit and the CLSE come although the recorded close-stdin never did: a host that
    // waits for the exit before closing is not stuck.
    EXPECT_EQ(device_output(script).size(), 2u);
    ASSERT_TRUE(send(script, kCommandClse, 7, 1)) << script.mismatch();
    EXPECT_EQ(script.host_messages_left(), 0u) << script.next_expected();
  }
  {
    SCOPED_TRACE(
        "the capture's host sent only OKAYs (its close-stdin lost the race with the CLSE)");
    Script s;
    s.add(kHost, kCommandOpen, 10, 0, bytes_of("shell,v2,raw:echo hi"));
    s.add(kDevice, kCommandOkay, 1, 10);
    s.add(kDevice, kCommandWrte, 1, 10, {1, 3, 0, 0, 0, 'h', 'i', '\n'});
    s.add(kDevice, kCommandWrte, 1, 10, {3, 1, 0, 0, 0, 0});
    s.add(kDevice, kCommandClse, 1, 10);
    s.add(kHost, kCommandOkay, 10, 1);
    ReplayScript script = s.build();
    ASSERT_TRUE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));
    ASSERT_TRUE(send(script, kCommandWrte, 7, 1, kCloseStdin)) << script.mismatch();
    ASSERT_TRUE(send(script, kCommandOkay, 7, 1)) << script.mismatch();
    EXPECT_EQ(script.host_messages_left(), 0u) << script.next_expected();
    // Another WRTE there is still a mismatch: only the close-stdin is free.
    EXPECT_FALSE(send(script, kCommandWrte, 7, 1, {0, 1, 0, 0, 0, 'x'}));
  }
}

TEST(ReplayScript, AcksOwedOnAStreamTheDeviceClosedAreOptional) {
  ReplayScript script = shell_session(false).build();
  ASSERT_TRUE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));
  ASSERT_TRUE(send(script, kCommandOkay, 7, 1));
  device_output(script);
  // The device's CLSE is out: the last OKAY and the CLSE may be left out.
  EXPECT_EQ(script.host_messages_left(), 0u) << script.next_expected();
}

TEST(ReplayScript, AnotherPayloadIsAMismatchNamingBoth) {
  ReplayScript script = shell_session(false).build();
  EXPECT_FALSE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo bye")));
  EXPECT_NE(script.mismatch().find("expected: OPEN"), std::string::npos) << script.mismatch();
  EXPECT_NE(script.mismatch().find("echo hi"), std::string::npos) << script.mismatch();
  EXPECT_NE(script.mismatch().find("echo bye"), std::string::npos) << script.mismatch();
  EXPECT_NE(script.mismatch().find("capture frame 1"), std::string::npos) << script.mismatch();
  EXPECT_FALSE(send(script, kCommandOpen, 7, 0, bytes_of("shell,v2,raw:echo hi")));  // stays failed
}

TEST(ReplayScript, RequestsOnAStreamKeepTheirOrder) {
  // A sync session: RECV then QUIT; a host that skips QUIT and closes is caught.
  Script s;
  s.add(kHost, kCommandOpen, 29, 0, bytes_of("sync:"));
  s.add(kDevice, kCommandOkay, 1, 29);
  s.add(kHost, kCommandWrte, 29, 1, bytes_of("RECV\x04\0\0\0/a/b"));
  s.add(kDevice, kCommandOkay, 1, 29);
  s.add(kHost, kCommandWrte, 29, 1, bytes_of("QUIT\0\0\0\0"));
  s.add(kDevice, kCommandClse, 1, 29);
  s.add(kHost, kCommandClse, 29, 1);
  ReplayScript script = s.build();
  ASSERT_TRUE(send(script, kCommandOpen, 3, 0, bytes_of("sync:")));
  ASSERT_TRUE(send(script, kCommandWrte, 3, 1, bytes_of("RECV\x04\0\0\0/a/b")));
  EXPECT_FALSE(send(script, kCommandClse, 3, 1));
  EXPECT_NE(script.mismatch().find("expected: WRTE"), std::string::npos) << script.mismatch();
  EXPECT_NE(script.mismatch().find("actual:   CLSE"), std::string::npos) << script.mismatch();
}

TEST(ReplayScript, StreamsMayInterleaveInAnyOrder) {
  Script s;
  s.add(kHost, kCommandOpen, 1, 0, bytes_of("exec:a"));
  s.add(kHost, kCommandOpen, 2, 0, bytes_of("exec:b"));
  s.add(kDevice, kCommandOkay, 5, 1);
  s.add(kDevice, kCommandOkay, 6, 2);
  s.add(kHost, kCommandWrte, 1, 5, bytes_of("to a"));
  s.add(kHost, kCommandWrte, 2, 6, bytes_of("to b"));
  ReplayScript script = s.build();
  ASSERT_TRUE(send(script, kCommandOpen, 11, 0, bytes_of("exec:a")));
  ASSERT_TRUE(send(script, kCommandOpen, 12, 0, bytes_of("exec:b")));
  device_output(script);
  ASSERT_TRUE(send(script, kCommandWrte, 12, 6, bytes_of("to b")));
  ASSERT_TRUE(send(script, kCommandWrte, 11, 5, bytes_of("to a"))) << script.mismatch();
  EXPECT_EQ(script.host_messages_left(), 0u);
}

TEST(ReplayScript, AMessageOnAStreamNeverOpenedIsAMismatch) {
  ReplayScript script = shell_session(false).build();
  EXPECT_FALSE(send(script, kCommandWrte, 9, 1, bytes_of("x")));
  EXPECT_NE(script.mismatch().find("never opened a stream with local id 9"), std::string::npos)
      << script.mismatch();
}

}  // namespace
}  // namespace adbwire::capture_detail
