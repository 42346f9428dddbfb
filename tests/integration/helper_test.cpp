// Fast snapshots through the on-device dumper, end to end against the virtual device, which
// emulates the dumper's protocol (src/vdevice/dumper_app_process.cpp): install by hash, one
// long-lived process, the same snapshot as `uiautomator dump`, restart after a death, and
// fallback or typed errors for every way the helper can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/stream.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "agent/helper_dex.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::size_t helper_starts(const VirtualDevice& vd) {
  const auto events = vd.events();
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [](const std::string& e) {
        return e.starts_with("app_process ") && e.find("com.adbwire.Dumper") != std::string::npos;
      }));
}

bool has_hierarchy(const ui::Snapshot& snapshot) { return !snapshot.to_text().empty(); }

fs::path pushed_dex(const VirtualDevice& vd) {
  return vd.root() / "data/local/tmp" /
         ("adbwire-dumper-" + std::string(agent::dumper_dex_hash()) + ".dex");
}

class HelperTest : public ::testing::Test {
 protected:
  void SetUp() override { vd_.start(); }

  Page page(PageOptions::Helper mode) {
    PageOptions options;
    options.helper = mode;
    options.helper_timeout = 300ms;
    options.dump_retry_pause = 10ms;
    options.on_warning = [this](std::string_view message) { warnings_.emplace_back(message); };
    return Page::connect(vd_.target(), options);
  }

  VirtualDevice vd_;
  std::vector<std::string> warnings_;
};

TEST_F(HelperTest, SnapshotEqualsTheUiautomatorPathAndTheProcessIsReused) {
  Page plain = page(PageOptions::Helper::off);
  const std::string expected_text = plain.snapshot().to_text();
  const std::string expected_xml = plain.last_dump();

  Page fast = page(PageOptions::Helper::on);
  EXPECT_EQ(fast.snapshot().to_text(), expected_text);
  EXPECT_EQ(fast.last_dump(), expected_xml.substr(0, expected_xml.find("UI hierchary dumped to:")));
  EXPECT_TRUE(fast.helper_status().in_use);
  EXPECT_EQ(fast.snapshot().to_text(), expected_text);
  EXPECT_EQ(fast.snapshot().to_text(), expected_text);
  EXPECT_EQ(helper_starts(vd_), 1U) << "three snapshots must share one dumper process";

  std::ifstream in(pushed_dex(vd_), std::ios::binary);
  const std::vector<std::uint8_t> on_device{std::istreambuf_iterator<char>(in),
                                            std::istreambuf_iterator<char>()};
  const auto dex = agent::dumper_dex();
  EXPECT_EQ(on_device, std::vector<std::uint8_t>(dex.begin(), dex.end()));
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(HelperTest, AnInstalledDexIsNotPushedAgain) {
  page(PageOptions::Helper::on).snapshot();
  const auto first = fs::last_write_time(pushed_dex(vd_));
  // Marks the file so a second push would be seen whatever the clock's resolution.
  fs::last_write_time(pushed_dex(vd_), first - 1h);
  page(PageOptions::Helper::on).snapshot();
  EXPECT_EQ(fs::last_write_time(pushed_dex(vd_)), first - 1h);
  EXPECT_EQ(helper_starts(vd_), 2U);
}

TEST_F(HelperTest, OffNeverPushesNorStartsIt) {
  Page p = page(PageOptions::Helper::off);
  p.snapshot();
  p.snapshot();
  EXPECT_EQ(helper_starts(vd_), 0U);
  EXPECT_FALSE(fs::exists(pushed_dex(vd_)));
  EXPECT_FALSE(p.helper_status().in_use);
}

TEST_F(HelperTest, ADeadHelperIsRestartedOnce) {
  vd_.set_dumper_fault(DumperFault::die_after, 1);
  Page p = page(PageOptions::Helper::on);
  const std::string first = p.snapshot().to_text();
  EXPECT_EQ(p.snapshot().to_text(), first);  // the first process dies here; a second answers
  EXPECT_EQ(helper_starts(vd_), 2U);
  EXPECT_TRUE(p.helper_status().in_use);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(HelperTest, DyingAgainAfterTheRestartIsAnErrorWhenOn) {
  vd_.set_dumper_fault(DumperFault::die_after, 0);
  Page p = page(PageOptions::Helper::on);
  std::error_code error;
  p.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(p.last_error().find("died during a dump twice"), std::string::npos) << p.last_error();
  EXPECT_EQ(helper_starts(vd_), 2U);
}

TEST_F(HelperTest, DyingAgainFallsBackToUiautomatorWhenAutomatic) {
  vd_.set_dumper_fault(DumperFault::die_after, 0);
  Page p = page(PageOptions::Helper::automatic);
  EXPECT_FALSE(p.snapshot().to_text().empty());
  EXPECT_TRUE(p.helper_status().fell_back);
  EXPECT_FALSE(p.helper_status().in_use);
  p.snapshot();
  EXPECT_EQ(helper_starts(vd_), 2U) << "after falling back the helper must not be tried again";
  ASSERT_EQ(warnings_.size(), 1U) << "the fallback is announced once";
  EXPECT_NE(warnings_[0].find("died during a dump twice"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find("--helper off"), std::string::npos) << warnings_[0];
  // Nor for the clipboard or non-ASCII typing: a dumper started now would hold UiAutomation
  // and fail every `uiautomator dump` that replaced it.
  std::error_code error;
  p.clipboard_set("x", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  const ui::Snapshot& shown = p.snapshot();
  ASSERT_FALSE(shown.refs().empty());
  p.type(shown.refs().front().ref, "é", {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_EQ(helper_starts(vd_), 2U);
  EXPECT_FALSE(p.snapshot().to_text().empty());
}

// A hung dumper outlives its stream and keeps UiAutomation (the virtual device models both),
// so the fallback works only because the host kills it by its process name.
TEST_F(HelperTest, AHungHelperTimesOutIsKilledAndFallsBack) {
  vd_.set_dumper_fault(DumperFault::never_answer);
  Page fast = page(PageOptions::Helper::automatic);
  EXPECT_FALSE(fast.snapshot().to_text().empty());
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("did not answer in time"), std::string::npos) << warnings_[0];
  EXPECT_EQ(fast.helper_status().last_error.empty(), false);
  const auto events = vd_.events();
  const auto kill = std::find_if(events.begin(), events.end(),
                                 [](const std::string& e) { return e.starts_with("pkill "); });
  ASSERT_NE(kill, events.end());
  EXPECT_NE(kill->find("adbwire-dumper-"), std::string::npos) << *kill;

  Page strict = page(PageOptions::Helper::on);
  std::error_code error;
  strict.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::timeout);
}

TEST_F(HelperTest, GarbageFallsBackWithTheBytesQuoted) {
  vd_.set_dumper_fault(DumperFault::garbage);
  Page fast = page(PageOptions::Helper::automatic);
  EXPECT_FALSE(fast.snapshot().to_text().empty());
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("no reply frame"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find("ELF"), std::string::npos) << warnings_[0];

  Page strict = page(PageOptions::Helper::on);
  std::error_code error;
  strict.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::protocol_error);
}

TEST_F(HelperTest, AlreadyRegisteredIsBusyWithoutFallback) {
  vd_.set_dumper_fault(DumperFault::already_registered);
  for (const auto mode : {PageOptions::Helper::automatic, PageOptions::Helper::on}) {
    Page p = page(mode);
    std::error_code error;
    p.snapshot(kDefaultDeadline, error);
    EXPECT_EQ(error, errc::busy);
    EXPECT_NE(p.last_error().find("UiAutomation"), std::string::npos) << p.last_error();
    EXPECT_FALSE(p.helper_status().fell_back);
  }
  EXPECT_TRUE(warnings_.empty());
}

// The emulated dumper byte for byte, without Page: it needs the dex on the class path, and
// frames its replies as the README says.
TEST_F(HelperTest, TheVirtualDumperSpeaksTheDocumentedFraming) {
  const std::string dex = "/data/local/tmp/adbwire-dumper-test.dex";
  const std::string command = "exec:app_process -Djava.class.path=" + dex +
                              ":/system/framework/uiautomator.jar /system/bin com.adbwire.Dumper";
  Device device = Device::connect(vd_.target());
  EXPECT_NE(device.open(command).read_all().find("Could not find class"), std::string::npos);

  // uiautomator's dump first: while the dumper runs it holds the only UiAutomation connection.
  std::string xml = device.exec("uiautomator dump /dev/tty");
  xml.erase(xml.find("UI hierchary dumped to:"));
  fs::create_directories(vd_.root() / "data/local/tmp");
  std::ofstream(vd_.root() / "data/local/tmp/adbwire-dumper-test.dex") << "dex\n";
  Stream stream = device.open(command);
  const std::vector<std::uint8_t> requests{'P', 'D', 0, 0, 1, 0, 0, 0, 2, 0};
  stream.write(requests);
  std::string replies;
  std::array<std::uint8_t, 4096> buffer{};
  while (replies.find("</hierarchy>") == std::string::npos) {
    const std::size_t n = stream.read_some(buffer, deadline_after(5s));
    ASSERT_GT(n, 0U) << replies;
    replies.append(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
  }
  ASSERT_GE(replies.size(), 26U);
  EXPECT_EQ(replies.substr(0, 21), std::string("\0\0\0\0\x10"
                                               "adbwire-dumper 3",
                                               21));
  EXPECT_EQ(replies[21], '\0');  // the dump: ok
  const std::uint32_t length =
      protocol::load_be32(reinterpret_cast<const std::uint8_t*>(replies.data()) + 22);
  EXPECT_EQ(length, replies.size() - 26);
  EXPECT_EQ(replies.substr(26), xml);
  // An unknown request gets a failure reply, and the process keeps serving.
  const std::vector<std::uint8_t> unknown{'?', 'P'};
  stream.write(unknown);
  std::string more;
  while (more.size() < 5 + 31 + 21) {
    const std::size_t n = stream.read_some(buffer, deadline_after(5s));
    ASSERT_GT(n, 0U) << more;
    more.append(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
  }
  EXPECT_EQ(more.substr(0, 36), std::string("\x01\0\0\0\x1f"
                                            "adbwire-dumper: unknown request",
                                            36));
  EXPECT_EQ(more.substr(36), std::string("\0\0\0\0\x10"
                                         "adbwire-dumper 3",
                                         21));
}

TEST_F(HelperTest, ADumperThatCannotStartIsExplainedWithItsStderr) {
  // app_process runs, the dumper dies before its first reply with a Java error on stderr,
  // which the start command sends to a file rather than into the reply stream.
  vd_.set_dumper_fault(DumperFault::crash_at_start);
  Page strict = page(PageOptions::Helper::on);
  std::error_code error;
  strict.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(strict.last_error().find("NoSuchMethodError"), std::string::npos)
      << strict.last_error();
  EXPECT_NE(strict.last_error().find("adbwire-dumper.log"), std::string::npos)
      << strict.last_error();
  // After a failed start the dex is checked again: one removed meanwhile is pushed back.
  fs::remove(pushed_dex(vd_));
  vd_.set_dumper_fault(DumperFault::none);
  strict.snapshot(kDefaultDeadline, error);
  EXPECT_FALSE(error) << strict.last_error();
  EXPECT_TRUE(fs::exists(pushed_dex(vd_)));
}

TEST_F(HelperTest, AnEmptyAnswerFallsBackAndTheDumpPathAnswers) {
  vd_.set_ui_dump_fault(UiDumpFault::empty_file, 1);  // taken by the helper's dump
  Page p = page(PageOptions::Helper::automatic);
  EXPECT_TRUE(has_hierarchy(p.snapshot()));
  EXPECT_TRUE(p.helper_status().fell_back);
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("without a UI hierarchy"), std::string::npos) << warnings_[0];
}

TEST_F(HelperTest, UiautomatorFailuresReportedByTheHelperAreRetriedLikeTheDumpPath) {
  vd_.set_ui_dump_fault(UiDumpFault::idle_state, 2);
  Page p = page(PageOptions::Helper::on);
  EXPECT_FALSE(p.snapshot().to_text().empty());
  EXPECT_EQ(helper_starts(vd_), 1U);

  vd_.set_ui_dump_fault(UiDumpFault::idle_state, 5);
  std::error_code error;
  p.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_NE(p.last_error().find("could not get idle state"), std::string::npos) << p.last_error();
}

}  // namespace
}  // namespace adbwire
