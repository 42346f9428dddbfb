// Logcat: the logger_entry decoder byte for byte (v1–v4 headers, split anywhere), filters,
// and Logcat streaming from the virtual device's ring (dump, follow, ring bound, stop, the
// device's own words when its logcat refuses).
#include "adbwire/logcat.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

// One entry as liblog lays it out; header_size 20 is v1 (its __pad field is 0).
std::vector<std::uint8_t> entry(std::uint16_t header_size, std::uint8_t priority,
                                const std::string& tag, const std::string& message,
                                std::uint32_t lid = 0) {
  std::vector<std::uint8_t> payload{priority};
  payload.insert(payload.end(), tag.begin(), tag.end());
  payload.push_back(0);
  payload.insert(payload.end(), message.begin(), message.end());
  payload.push_back(0);
  std::vector<std::uint8_t> out;
  protocol::append_le16(out, static_cast<std::uint16_t>(payload.size()));
  protocol::append_le16(out, header_size == 20 ? 0 : header_size);
  protocol::append_le32(out, 4242);        // pid
  protocol::append_le32(out, 4243);        // tid
  protocol::append_le32(out, 1700000000);  // sec
  protocol::append_le32(out, 123456789);   // nsec
  if (header_size >= 24) protocol::append_le32(out, lid);
  if (header_size >= 28) protocol::append_le32(out, 10123);  // uid
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

TEST(LogcatDecoder, ReadsEveryHeaderVersionWhereverTheBytesAreCut) {
  std::vector<std::uint8_t> stream;
  for (std::uint16_t header : {20, 24, 28}) {
    const auto e = entry(header, 6, "Tag" + std::to_string(header), "line one\nline two");
    stream.insert(stream.end(), e.begin(), e.end());
  }
  for (std::size_t cut = 1; cut <= stream.size(); ++cut) {
    LogcatDecoder decoder;
    std::vector<LogRecord> records;
    for (std::size_t at = 0; at < stream.size(); at += cut) {
      std::error_code error;
      decoder.feed(std::span(stream).subspan(at, std::min(cut, stream.size() - at)), records,
                   error);
      ASSERT_FALSE(error) << "cut " << cut;
    }
    ASSERT_EQ(records.size(), 3u) << "cut " << cut;
    EXPECT_EQ(decoder.buffered(), 0u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(records[i].pid, 4242);
      EXPECT_EQ(records[i].tid, 4243u);
      EXPECT_EQ(records[i].level, LogLevel::error);
      EXPECT_EQ(records[i].message, "line one\nline two");
      EXPECT_EQ(records[i].time.time_since_epoch(),
                std::chrono::duration_cast<std::chrono::system_clock::duration>(1700000000s +
                                                                                123456789ns));
    }
    EXPECT_EQ(records[0].tag, "Tag20");
    EXPECT_EQ(records[2].tag, "Tag28");
    EXPECT_EQ(records[2].uid, 10123u);
  }
}

TEST(LogcatDecoder, SkipsBinaryBuffersAndRejectsWhatIsNotLogcat) {
  std::vector<std::uint8_t> stream = entry(28, 4, "events", "\x01\x02\x03", 2);
  const auto main = entry(28, 4, "Main", "hello");
  stream.insert(stream.end(), main.begin(), main.end());
  LogcatDecoder decoder;
  std::vector<LogRecord> records;
  std::error_code error;
  decoder.feed(stream, records, error);
  ASSERT_FALSE(error);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].tag, "Main");

  const std::string text = "01-02 03:04:05.678  1234  1234 I Tag: text output\n";
  LogcatDecoder text_decoder;
  text_decoder.feed({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, records,
                    error);
  EXPECT_EQ(error, errc::parse_error);
  text_decoder.feed(main, records, error);
  EXPECT_EQ(error, errc::parse_error);
}

TEST(LogFilter, ParsesAdbFilterspecs) {
  const LogFilter filter = LogFilter::parse({"ActivityManager:I", "MyApp", "*:E"});
  LogRecord record;
  record.tag = "ActivityManager";
  record.level = LogLevel::info;
  EXPECT_TRUE(filter.passes(record));
  record.level = LogLevel::debug;
  EXPECT_FALSE(filter.passes(record));
  record.tag = "MyApp";
  record.level = LogLevel::verbose;
  EXPECT_TRUE(filter.passes(record));
  record.tag = "Other";
  record.level = LogLevel::warn;
  EXPECT_FALSE(filter.passes(record));
  record.level = LogLevel::fatal;
  EXPECT_TRUE(filter.passes(record));

  const LogFilter silent = LogFilter::parse({"MyApp:W"}, true);
  record.tag = "Other";
  EXPECT_FALSE(silent.passes(record));
  EXPECT_EQ(silent.specs(), (std::vector<std::string>{"MyApp:W", "*:S"}));

  EXPECT_THROW(LogFilter::parse({"Tag:X"}), Error);
  EXPECT_THROW(LogFilter::parse({":I"}), Error);
}

class LogcatTest : public ::testing::Test {
 protected:
  void SetUp() override { vd_.start(); }
  VirtualDevice vd_;
};

TEST_F(LogcatTest, DumpFiltersByTagAndLevelOnTheDeviceAndHere) {
  vd_.log('D', "MyApp", "debug detail");
  vd_.log('W', "MyApp", "low battery");
  vd_.log('E', "Other", "not ours");
  vd_.log('E', "MyApp", "crashed\nat line 2");
  Device device = Device::connect(vd_.target());
  LogcatOptions options;
  options.dump = true;
  options.filter = LogFilter::parse({"MyApp:W"}, true);
  std::vector<LogRecord> seen;
  Logcat logcat = Logcat::start(device, options, [&](const LogRecord& r) { seen.push_back(r); });
  ASSERT_TRUE(logcat.wait(deadline_after(10s)));
  EXPECT_FALSE(logcat.error()) << logcat.error().message();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].message, "low battery");
  EXPECT_EQ(seen[0].level, LogLevel::warn);
  EXPECT_EQ(seen[1].message, "crashed\nat line 2");
  EXPECT_EQ(seen[1].pid, 1000);
  EXPECT_EQ(logcat.recent().size(), 2u);
}

TEST_F(LogcatTest, RingKeepsOnlyTheNewestRecords) {
  for (int i = 0; i < 50; ++i) vd_.log('I', "Ring", "record " + std::to_string(i));
  Device device = Device::connect(vd_.target());
  LogcatOptions options;
  options.dump = true;
  options.ring_capacity = 5;
  options.filter = LogFilter::parse({"Ring:V"}, true);
  Logcat logcat = Logcat::start(device, options, {});
  ASSERT_TRUE(logcat.wait(deadline_after(10s)));
  EXPECT_EQ(logcat.received(), 50u);
  const auto recent = logcat.recent();
  ASSERT_EQ(recent.size(), 5u);
  EXPECT_EQ(recent.front().message, "record 45");
  EXPECT_EQ(recent.back().message, "record 49");
}

TEST_F(LogcatTest, FollowsNewRecordsIncludingTheDevicesOwnEventsAndStopsCleanly) {
  Device device = Device::connect(vd_.target());
  std::atomic<int> seen{0};
  LogcatOptions options;
  options.clear = true;
  Logcat logcat = Logcat::start(device, options, [&](const LogRecord&) { ++seen; });
  device.shell("input keyevent 4");
  vd_.log('I', "Later", "after start");
  const auto give_up = Clock::now() + 10s;
  while (seen < 2 && Clock::now() < give_up) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(seen.load(), 2);
  EXPECT_TRUE(logcat.running());
  const auto recent = logcat.recent();
  EXPECT_EQ(recent[0].tag, "adbwire");
  EXPECT_EQ(recent[0].message, "input keyevent 4");
  logcat.stop();
  EXPECT_FALSE(logcat.running());
  EXPECT_FALSE(logcat.error());
  EXPECT_TRUE(logcat.wait(deadline_after(1s)));
  // The device is still usable: stop closed only the logcat stream.
  EXPECT_EQ(device.shell("echo ok").out, "ok\n");
}

TEST_F(LogcatTest, AHandlerThatThrowsEndsTheStreamWithItsError) {
  vd_.log('I', "T", "one");
  Device device = Device::connect(vd_.target());
  Logcat logcat =
      Logcat::start(device, {}, [](const LogRecord&) { throw Error(errc::cancelled, "enough"); });
  ASSERT_TRUE(logcat.wait(deadline_after(10s)));
  EXPECT_EQ(logcat.error(), errc::cancelled);
}

// What the device's logcat prints instead of records (exec: carries its stderr in the same
// stream) is the error, word for word, escaped: an option it refuses, a device without logcat.
TEST_F(LogcatTest, TheDevicesOwnWordsEndAStreamThatIsNotRecords) {
  Device device = Device::connect(vd_.target());
  LogcatOptions options;
  options.dump = true;
  options.device_args = {"-t", "x\x1b[2J"};
  Logcat logcat = Logcat::start(device, options, {});
  ASSERT_TRUE(logcat.wait(deadline_after(10s)));
  EXPECT_EQ(logcat.error(), errc::command_failed);
  EXPECT_EQ(logcat.error_detail(),
            "the device's logcat said: logcat: -t/-T takes a line count on the virtual device, "
            "not 'x\\x1b[2J'");

  VirtualDeviceOptions bare;
  bare.missing_commands = {"logcat"};
  VirtualDevice without(bare);
  without.start();
  Device old = Device::connect(without.target());
  Logcat none = Logcat::start(old, options, {});
  ASSERT_TRUE(none.wait(deadline_after(10s)));
  EXPECT_EQ(none.error(), errc::command_failed);
  EXPECT_EQ(none.error_detail(),
            "the device's logcat said: /system/bin/sh: logcat: inaccessible or not found");
}

}  // namespace
}  // namespace adbwire
