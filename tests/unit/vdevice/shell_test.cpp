#include "vdevice/shell.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adbwire/protocol/bytes.hpp"
#include "vdevice/sample_screen.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;

// Collects stdout and stderr; `limit` caps what may be queued, as a stream's queue does,
// and `drain()` plays the host acknowledging what was queued.
class RecordingOutput final : public ShellOutput {
 public:
  explicit RecordingOutput(std::size_t limit = 1 << 20) : limit_(limit) {}
  std::size_t room() const override { return queued_ >= limit_ ? 0 : limit_ - queued_; }
  void write_stdout(std::span<const std::uint8_t> bytes) override { append(out, bytes); }
  void write_stderr(std::span<const std::uint8_t> bytes) override { append(err, bytes); }
  void drain() { queued_ = 0; }

  std::string out;
  std::string err;
  std::size_t max_queued = 0;

 private:
  void append(std::string& to, std::span<const std::uint8_t> bytes) {
    to.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    queued_ += bytes.size();
    max_queued = std::max(max_queued, queued_);
  }
  std::size_t limit_;
  std::size_t queued_ = 0;
};

class ShellTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "adbwire-shell-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    base_ = pattern;
    fs::create_directories(base_ / "root" / "sdcard");
    fs::create_directories(base_ / "root" / "data" / "local" / "tmp");
    device_.emplace(base_ / "root", "test-serial");
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path host(const std::string& device_path) const {
    return base_ / "root" / fs::path(device_path).relative_path();
  }

  static std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Runs a script to the end; it must not wait for input or time.
  int run(std::string_view text, RecordingOutput& output) {
    ShellScript script(text, *device_);
    for (int i = 0; i < 100000; ++i) {
      auto state = script.run(output);
      if (state == ShellScript::State::finished) return script.exit_code();
      if (state == ShellScript::State::blocked) output.drain();
      if (state == ShellScript::State::needs_input) script.close_stdin();
      EXPECT_NE(state, ShellScript::State::sleeping) << text;
    }
    ADD_FAILURE() << "script did not finish: " << text;
    return -1;
  }

  struct Result {
    int code;
    std::string out;
    std::string err;
  };
  Result run(std::string_view text) {
    RecordingOutput output;
    int code = run(text, output);
    return {code, output.out, output.err};
  }

  fs::path base_;
  std::optional<DeviceContext> device_;
};

TEST_F(ShellTest, Echo) {
  auto r = run("echo hello   'big world'");
  EXPECT_EQ(r.out, "hello big world\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(run("echo -n abc").out, "abc");
  EXPECT_EQ(run("echo").out, "\n");
}

TEST_F(ShellTest, ExitStatusDrivesAndOr) {
  EXPECT_EQ(run("false && echo no || echo yes").out, "yes\n");
  EXPECT_EQ(run("true || echo no; echo after").out, "after\n");
  EXPECT_EQ(run("true && echo a && false && echo b").out, "a\n");
  EXPECT_EQ(run("true").code, 0);
  EXPECT_EQ(run("false").code, 1);
  EXPECT_EQ(run("false; true").code, 0);
  EXPECT_EQ(run("true; false").code, 1);
  EXPECT_EQ(run("false && true").code, 1);
}

TEST_F(ShellTest, ExitStopsTheScript) {
  auto r = run("echo a; exit 3; echo b");
  EXPECT_EQ(r.out, "a\n");
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(run("false; exit").code, 1);
  EXPECT_EQ(run("exit 258").code, 2);
}

TEST_F(ShellTest, UnknownCommandIs127OnStderr) {
  auto r = run("frobnicate --now");
  EXPECT_EQ(r.code, 127);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "/system/bin/sh: frobnicate: inaccessible or not found\n");
  auto quiet = run("frobnicate 2>/dev/null");
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.code, 127);
  auto merged = run("frobnicate 2>&1");
  EXPECT_EQ(merged.out, "/system/bin/sh: frobnicate: inaccessible or not found\n");
  EXPECT_EQ(merged.err, "");
}

TEST_F(ShellTest, SyntaxErrorExits2) {
  auto r = run("echo 'open");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "/system/bin/sh: syntax error: unterminated quoted string\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(ShellTest, RedirectsToFiles) {
  EXPECT_EQ(run("echo a > /sdcard/f; echo b >> /sdcard/f").code, 0);
  EXPECT_EQ(read_file(host("/sdcard/f")), "a\nb\n");
  EXPECT_EQ(run("cat /sdcard/f").out, "a\nb\n");
  EXPECT_EQ(run("cat < /sdcard/f").out, "a\nb\n");
  EXPECT_EQ(run("echo c >/sdcard/f").out, "");
  EXPECT_EQ(read_file(host("/sdcard/f")), "c\n");
  run("frobnicate 2> /sdcard/err");
  EXPECT_EQ(read_file(host("/sdcard/err")),
            "/system/bin/sh: frobnicate: inaccessible or not found\n");
  run("echo both > /sdcard/both 2>&1");
  EXPECT_EQ(read_file(host("/sdcard/both")), "both\n");
  EXPECT_EQ(run("echo gone > /dev/null").out, "");
}

TEST_F(ShellTest, RedirectFailures) {
  auto r = run("echo x > /nodir/f; echo next");
  EXPECT_EQ(r.err, "/system/bin/sh: can't create /nodir/f: No such file or directory\n");
  EXPECT_EQ(r.out, "next\n");
  EXPECT_EQ(run("echo x > /nodir/f").code, 1);
  EXPECT_EQ(run("cat < /missing").code, 1);
}

TEST_F(ShellTest, DotDotNeverLeavesRoot) {
  EXPECT_EQ(run("echo x > /../../../escape.txt").code, 0);
  EXPECT_TRUE(fs::exists(host("/escape.txt")));
  EXPECT_FALSE(fs::exists(base_ / "escape.txt"));
  EXPECT_EQ(run("cat ../../escape.txt").out, "x\n");
}

TEST_F(ShellTest, SymlinkOutOfRootIsRefused) {
  fs::create_directories(base_ / "outside");
  std::ofstream(base_ / "outside" / "secret") << "secret\n";
  fs::create_directory_symlink(base_ / "outside", host("/sdcard/link"));
  auto r = run("cat /sdcard/link/secret");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "cat: /sdcard/link/secret: Permission denied\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(run("echo x > /sdcard/link/new").code, 1);
  EXPECT_FALSE(fs::exists(base_ / "outside" / "new"));
}

TEST_F(ShellTest, CatErrorsAndConcatenation) {
  std::ofstream(host("/sdcard/a")) << "A";
  std::ofstream(host("/sdcard/b")) << "B";
  auto r = run("cat /sdcard/a /missing /sdcard/b");
  EXPECT_EQ(r.out, "AB");
  EXPECT_EQ(r.err, "cat: /missing: No such file or directory\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(run("cat /sdcard").err, "cat: /sdcard: Is a directory\n");
}

TEST_F(ShellTest, MkdirLsRm) {
  EXPECT_EQ(run("mkdir /data/local/tmp/x/y").code, 1);
  EXPECT_EQ(run("mkdir -p /data/local/tmp/x/y && echo ok").out, "ok\n");
  EXPECT_TRUE(fs::is_directory(host("/data/local/tmp/x/y")));
  EXPECT_EQ(run("mkdir /data/local/tmp/x").err, "mkdir: /data/local/tmp/x: File exists\n");
  EXPECT_EQ(run("mkdir -p /data/local/tmp/x").code, 0);
  run("echo 12345 > /data/local/tmp/x/file; echo h > /data/local/tmp/x/.hidden");
  EXPECT_EQ(run("ls /data/local/tmp/x").out, "file\ny\n");
  EXPECT_EQ(run("ls -a /data/local/tmp/x").out, ".hidden\nfile\ny\n");
  EXPECT_EQ(run("ls /data/local/tmp/x/file").out, "/data/local/tmp/x/file\n");
  auto long_listing = run("ls -l /data/local/tmp/x").out;
  EXPECT_TRUE(long_listing.starts_with("total 5\n")) << long_listing;
  EXPECT_NE(long_listing.find(" root root 6 "), std::string::npos) << long_listing;
  EXPECT_NE(long_listing.find("\nd"), std::string::npos) << long_listing;
  EXPECT_EQ(run("ls /nothing").err, "ls: /nothing: No such file or directory\n");

  EXPECT_EQ(run("rm /data/local/tmp/x").err, "rm: /data/local/tmp/x: Is a directory\n");
  EXPECT_EQ(run("rm /nothing").code, 1);
  EXPECT_EQ(run("rm -f /nothing").code, 0);
  EXPECT_EQ(run("rm /data/local/tmp/x/file").code, 0);
  EXPECT_FALSE(fs::exists(host("/data/local/tmp/x/file")));
  EXPECT_EQ(run("rm -rf /data/local/tmp/x").code, 0);
  EXPECT_FALSE(fs::exists(host("/data/local/tmp/x")));
  EXPECT_EQ(run("rm -rf /").code, 1);
  EXPECT_TRUE(fs::exists(host("/sdcard")));
}

TEST_F(ShellTest, GetpropAndWm) {
  EXPECT_EQ(run("getprop ro.build.version.sdk").out, "34\n");
  EXPECT_EQ(run("getprop ro.build.version.release").out, "14\n");
  EXPECT_EQ(run("getprop ro.product.model").out, "adbwire_virtual\n");
  EXPECT_EQ(run("getprop ro.serialno").out, "test-serial\n");
  EXPECT_EQ(run("getprop no.such.key").out, "\n");
  EXPECT_EQ(run("getprop no.such.key fallback").out, "fallback\n");
  EXPECT_NE(run("getprop").out.find("[ro.build.version.sdk]: [34]\n"), std::string::npos);
  EXPECT_EQ(run("wm size").out, "Physical size: 1080x2400\n");
  EXPECT_EQ(run("wm density").out, "Physical density: 420\n");
}

TEST_F(ShellTest, UiautomatorDumpWritesTheSampleScreen) {
  auto r = run("uiautomator dump");
  EXPECT_EQ(r.out, "UI hierchary dumped to: /sdcard/window_dump.xml\n");
  EXPECT_EQ(read_file(host("/sdcard/window_dump.xml")), sample_screen_xml());
  auto round_trip = run("uiautomator dump /data/local/tmp/u.xml && cat /data/local/tmp/u.xml");
  EXPECT_EQ(round_trip.out,
            "UI hierchary dumped to: /data/local/tmp/u.xml\n" + std::string(sample_screen_xml()));
  EXPECT_EQ(run("uiautomator dump /nodir/u.xml").code, 1);
}

TEST_F(ShellTest, SampleScreenXmlIsARealisticDump) {
  std::string_view xml = sample_screen_xml();
  EXPECT_TRUE(xml.starts_with(
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"));
  EXPECT_TRUE(xml.ends_with("</hierarchy>"));
  EXPECT_EQ(xml.find('\n'), std::string_view::npos);
  for (std::string_view needle :
       {"android.widget.EditText", "android.widget.Button", "android.widget.CheckBox",
        "scrollable=\"true\"", "bounds=\"[0,0][1080,2400]\""}) {
    EXPECT_NE(xml.find(needle), std::string_view::npos) << needle;
  }
}

TEST_F(ShellTest, InjectedEventsAreLoggedOnlyWhenRun) {
  EXPECT_EQ(run("input tap 10 20").code, 0);
  EXPECT_EQ(run("false && input tap 1 2").code, 1);
  auto bad = run("input tap x");
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.err, "Error: Invalid arguments for command: tap\n");
  EXPECT_EQ(run("input touchscreen swipe 1 2 3 4 500").code, 0);
  EXPECT_EQ(run("am start -n com.example/.Main").out,
            "Starting: Intent { cmp=com.example/.Main }\n");
  EXPECT_NE(run("monkey -p com.example -c android.intent.category.LAUNCHER 1")
                .out.find("Events injected: 1\n"),
            std::string::npos);
  EXPECT_EQ(run("cmd statusbar collapse").code, 0);
  EXPECT_EQ(device_->events(),
            (std::vector<std::string>{"input tap 10 20", "input touchscreen swipe 1 2 3 4 500",
                                      "am start -n com.example/.Main",
                                      "monkey -p com.example -c android.intent.category.LAUNCHER 1",
                                      "cmd statusbar collapse"}));
}

TEST_F(ShellTest, CatReadsStdinUntilClosed) {
  ShellScript script("cat; echo done", *device_);
  RecordingOutput output;
  EXPECT_EQ(script.run(output), ShellScript::State::needs_input);
  script.feed_stdin(protocol::bytes_of("ab"));
  EXPECT_EQ(script.stdin_buffered(), 2u);
  EXPECT_EQ(script.run(output), ShellScript::State::needs_input);
  EXPECT_EQ(script.stdin_buffered(), 0u);
  script.feed_stdin(protocol::bytes_of("c\n"));
  script.close_stdin();
  EXPECT_EQ(script.run(output), ShellScript::State::finished);
  EXPECT_EQ(output.out, "abc\ndone\n");
  EXPECT_EQ(script.exit_code(), 0);
}

TEST_F(ShellTest, StreamingOutputNeverExceedsRoom) {
  constexpr std::size_t kLimit = 100000;
  RecordingOutput output(kLimit);
  ShellScript script("head -c 1000000 /dev/zero", *device_);
  int blocked = 0;
  for (;;) {
    auto state = script.run(output);
    if (state == ShellScript::State::finished) break;
    ASSERT_EQ(state, ShellScript::State::blocked);
    ++blocked;
    output.drain();
  }
  EXPECT_EQ(output.out, std::string(1000000, '\0'));
  EXPECT_LE(output.max_queued, kLimit);
  EXPECT_GE(blocked, 9);
}

TEST_F(ShellTest, HeadLinesAndBytes) {
  std::ofstream(host("/sdcard/lines")) << "1\n2\n3\n4\n";
  EXPECT_EQ(run("head -n 2 /sdcard/lines").out, "1\n2\n");
  EXPECT_EQ(run("head -c3 /sdcard/lines").out, "1\n2");
  EXPECT_EQ(run("head -c x /sdcard/lines").code, 1);
}

// dd as hosts use it to read a range of a file (services/apk_ranges): blocks skipped by
// seeking, the count clipped at the end of the file, the record counts on stderr (dropped by
// 2>/dev/null), the file name quoted inside the operand; each run is an event.
TEST_F(ShellTest, DdReadsBlocksOfAFile) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += static_cast<char>('a' + i % 26);
  std::ofstream(host("/sdcard/my file"), std::ios::binary) << bytes;
  auto r = run("dd if='/sdcard/my file' bs=16 skip=2 count=3");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, bytes.substr(32, 48));
  EXPECT_EQ(r.err, "3+0 records in\n3+0 records out\n48 bytes copied\n");
  r = run("dd if='/sdcard/my file' bs=16 skip=5 count=4 2>/dev/null");
  EXPECT_EQ(r.out, bytes.substr(80));
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(run("dd if='/sdcard/my file' bs=16 skip=9 count=1 2>/dev/null").out, "");
  EXPECT_EQ(run("dd if=/sdcard/none bs=16 count=1").code, 1);
  r = run("dd if='/sdcard/my file' bs=16 iflag=skip_bytes");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "dd: unknown arg iflag\n");
  EXPECT_EQ(run("dd if='/sdcard/my file' bs=x").err, "dd: invalid number 'x'\n");
  const auto events = device_->events();
  EXPECT_NE(std::find(events.begin(), events.end(), "dd if=/sdcard/my file bs=16 skip=2 count=3"),
            events.end());
}

TEST_F(ShellTest, DdAnswersRangesWronglyWhenHostile) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += static_cast<char>('a' + i % 26);
  std::ofstream(host("/sdcard/f"), std::ios::binary) << bytes;
  device_->set_hostile_output(HostileOutput::short_ranges);
  EXPECT_EQ(run("dd if=/sdcard/f bs=16 skip=1 count=2 2>/dev/null").out, bytes.substr(16, 31));
  device_->set_hostile_output(HostileOutput::shifted_ranges);
  EXPECT_EQ(run("dd if=/sdcard/f bs=16 skip=1 count=2 2>/dev/null").out, bytes.substr(32, 32));
  device_->set_hostile_output(HostileOutput::long_ranges);
  ShellScript script("dd if=/sdcard/f bs=16 skip=1 count=2 2>/dev/null", *device_);
  RecordingOutput output;
  for (int i = 0; i < 50; ++i) {
    ASSERT_NE(script.run(output), ShellScript::State::finished);
    output.drain();
  }
  ASSERT_GT(output.out.size(), 32u);
  EXPECT_EQ(output.out.substr(0, 32), bytes.substr(16, 32));
  EXPECT_EQ(output.out.substr(32), std::string(output.out.size() - 32, '\0'));
}

TEST_F(ShellTest, SleepIsWaitedForByTheCaller) {
  ShellScript script("sleep 1.5; echo woke", *device_);
  RecordingOutput output;
  ASSERT_EQ(script.run(output), ShellScript::State::sleeping);
  EXPECT_EQ(script.sleep_duration(), std::chrono::milliseconds(1500));
  EXPECT_EQ(output.out, "");
  EXPECT_EQ(script.run(output), ShellScript::State::finished);
  EXPECT_EQ(output.out, "woke\n");
  EXPECT_EQ(run("sleep 3600").code, 1);
  EXPECT_EQ(run("sleep abc").code, 1);
}

TEST_F(ShellTest, StreamedInstallReadsExactlyTheAnnouncedSize) {
  ShellScript script("cmd package install -S 5", *device_);
  RecordingOutput output;
  EXPECT_EQ(script.run(output), ShellScript::State::needs_input);
  script.feed_stdin(protocol::bytes_of("12345"));
  EXPECT_EQ(script.run(output), ShellScript::State::finished);
  EXPECT_EQ(output.out, "Success\n");
  ShellScript short_apk("cmd package install -S 5", *device_);
  RecordingOutput short_output;
  short_apk.feed_stdin(protocol::bytes_of("12"));
  short_apk.close_stdin();
  EXPECT_EQ(short_apk.run(short_output), ShellScript::State::finished);
  EXPECT_EQ(short_apk.exit_code(), 1);
}

TEST_F(ShellTest, ScreencapStreamsThePngAndTheRawImage) {
  RecordingOutput png(300 * 1024);
  EXPECT_EQ(run("screencap -p", png), 0);
  auto expected = SampleScreen::instance().png_bytes();
  ASSERT_EQ(png.out.size(), expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(),
                         reinterpret_cast<const std::uint8_t*>(png.out.data())));
  EXPECT_LE(png.max_queued, 300u * 1024);

  RecordingOutput raw;
  EXPECT_EQ(run("screencap", raw), 0);
  ASSERT_EQ(raw.out.size(), 16u + 1080u * 2400u * 4u);
  auto u32 = [&](std::size_t at) {
    return protocol::load_le32(reinterpret_cast<const std::uint8_t*>(raw.out.data()) + at);
  };
  EXPECT_EQ(u32(0), 1080u);
  EXPECT_EQ(u32(4), 2400u);
  EXPECT_EQ(u32(8), 1u);
  std::vector<std::uint8_t> row(1080 * 4);
  SampleScreen::instance().render_row(400, row);
  EXPECT_EQ(raw.out.substr(16 + 400 * 1080 * 4, row.size()), std::string(row.begin(), row.end()));

  EXPECT_EQ(run("screencap -p /sdcard/s.png").code, 0);
  EXPECT_EQ(read_file(host("/sdcard/s.png")), std::string(expected.begin(), expected.end()));
}

}  // namespace
}  // namespace adbwire::vdevice
