// Replays the captures in captures/ (the real adb host against the virtual device, made by
// scripts/record-captures) against the library: the same operation must send the same
// messages. Also: a wrong operation fails with a diff naming both messages, and a capture the
// library recorded itself replays with the host features compared too.
#include "adbwire/replay.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

fs::path capture(const std::string& name) {
  return fs::path(ADBWIRE_SOURCE_DIR) / "captures" / name;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs operation on the replay's Device; a failure reports the replay's diff with the error.
template <class Operation>
void run(Replay& replay, Operation operation) {
  try {
    operation(replay.device());
  } catch (const Error& e) {
    ADD_FAILURE() << e.what() << "\n" << replay.mismatch();
  }
}

class ReplayTest : public ::testing::Test {
 protected:
  // Captures made by adb 29: its host features are its own (see ReplayOptions).
  ReplayOptions adb_capture_options() const {
    ReplayOptions options;
    options.connect.keys.android_dir = keys_.path();
    options.connect.connect_timeout = std::chrono::seconds(10);
    options.connect.command_timeout = std::chrono::seconds(10);
    options.match_host_features = false;
    return options;
  }

  test::TempDir keys_;
  test::TempDir work_;
};

TEST_F(ReplayTest, ShellReproducesAdbShell) {
  Replay replay = Replay::start(capture("shell.pcapng"), adb_capture_options());
  run(replay, [](Device& device) {
    const ShellResult result = device.shell("echo hello");
    EXPECT_EQ(result.out, "hello\n");
    EXPECT_EQ(result.exit_code, 0);
  });
  replay.finish();
}

TEST_F(ReplayTest, ExecReproducesAdbExecOut) {
  Replay replay = Replay::start(capture("exec-out.pcapng"), adb_capture_options());
  run(replay, [](Device& device) {
    EXPECT_EQ(device.exec("cat /sdcard/hello.txt"), "hello from the virtual device\n");
  });
  replay.finish();
}

TEST_F(ReplayTest, PullReproducesAdbPull) {
  Replay replay = Replay::start(capture("pull.pcapng"), adb_capture_options());
  const fs::path local = work_.path() / "small.txt";
  run(replay, [&](Device& device) { pull(device, "/sdcard/small.txt", local); });
  EXPECT_EQ(read_text(local), std::string(3000, 'a'));
  replay.finish();
}

TEST_F(ReplayTest, PushReproducesAdbPush) {
  // The file scripts/record-captures pushed: same bytes, mode and mtime.
  const fs::path local = work_.path() / "push.txt";
  std::ofstream(local) << "pushed by adb\n";
  fs::permissions(local, fs::perms(0644));
  fs::last_write_time(local, fs::file_time_type::clock::from_sys(
                                 std::chrono::sys_seconds(std::chrono::seconds(1704067200))));
  Replay replay = Replay::start(capture("push.pcapng"), adb_capture_options());
  run(replay, [&](Device& device) { push(device, local, "/sdcard/pushed.txt"); });
  replay.finish();
}

TEST_F(ReplayTest, ScreenshotReproducesAdbScreencap) {
  Replay replay = Replay::start(capture("screencap.pcapng.zst"), adb_capture_options());
  ScreenshotOptions options;
  options.encode_on_host = false;  // `adb exec-out screencap -p`: the device's PNG, 10 MB
  run(replay, [&](Device& device) {
    const EncodedImage image = screenshot(device, options);
    EXPECT_EQ(image.width, 1080u);
    EXPECT_EQ(image.height, 2400u);
  });
  replay.finish();
}

TEST_F(ReplayTest, AuthReproducesAdbSignedConnect) {
  Replay replay = Replay::start(capture("auth.pcapng"), adb_capture_options());
  run(replay,
      [](Device& device) { EXPECT_EQ(device.shell("echo authorized").out, "authorized\n"); });
  replay.finish();
}

TEST_F(ReplayTest, WrongCommandFailsWithDiffNamingBoth) {
  Replay replay = Replay::start(capture("shell.pcapng"), adb_capture_options());
  std::error_code error;
  replay.device().shell("echo goodbye", kDefaultDeadline, error);
  EXPECT_TRUE(error);
  const std::string diff = replay.mismatch();
  EXPECT_NE(diff.find("expected: OPEN"), std::string::npos) << diff;
  EXPECT_NE(diff.find("\"shell,v2,raw:echo hello"), std::string::npos) << diff;
  EXPECT_NE(diff.find("actual:   OPEN"), std::string::npos) << diff;
  EXPECT_NE(diff.find("\"shell,v2,raw:echo goodbye"), std::string::npos) << diff;
  try {
    replay.finish();
    ADD_FAILURE() << "finish() accepted a replay that differed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::protocol_error);
    EXPECT_NE(std::string(e.what()).find("echo goodbye"), std::string::npos) << e.what();
  }
}

TEST_F(ReplayTest, StoppingEarlyFailsNamingTheNextMessage) {
  Replay replay = Replay::start(capture("pull.pcapng"), adb_capture_options());
  std::error_code error;
  replay.finish(error);
  EXPECT_EQ(error, errc::protocol_error);
  EXPECT_NE(replay.failure().find("the next one is OPEN"), std::string::npos) << replay.failure();
  EXPECT_NE(replay.failure().find("sync:"), std::string::npos) << replay.failure();
}

TEST_F(ReplayTest, LibraryRecordingReplaysWithHostFeaturesCompared) {
  VirtualDevice device;
  device.start();
  std::ofstream(device.root() / "sdcard" / "note.txt") << "note\n";
  const fs::path recording = work_.path() / "library.pcapng";
  ConnectOptions options;
  options.keys.android_dir = keys_.path();
  options.record = recording;
  {
    Device live = Device::connect(device.target(), options);
    EXPECT_EQ(live.shell("echo recorded").out, "recorded\n");
    EXPECT_EQ(live.exec("cat /sdcard/note.txt"), "note\n");
  }
  ReplayOptions replay_options;
  replay_options.connect.keys.android_dir = keys_.path();
  Replay replay = Replay::start(recording, replay_options);
  run(replay, [](Device& device) {
    EXPECT_EQ(device.shell("echo recorded").out, "recorded\n");
    EXPECT_EQ(device.exec("cat /sdcard/note.txt"), "note\n");
  });
  replay.finish();
}

TEST_F(ReplayTest, MissingCaptureSaysNotFound) {
  std::error_code error;
  Replay::start(work_.path() / "absent.pcapng", adb_capture_options(), error);
  EXPECT_EQ(error, errc::not_found);
}

}  // namespace
}  // namespace adbwire
