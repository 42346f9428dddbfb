// The virtual device's profiles (old and odd adbd versions) against the whole library: shell,
// exec, push, pull, install and snapshot on one connection per profile. And the real adb host
// accepting the oldest profile.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/install.hpp"
#include "adbwire/page.hpp"
#include "adbwire/protocol/message.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const VirtualDeviceProfile& profile : virtual_device_profiles())
    names.emplace_back(profile.name);
  return names;
}

class ProfileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ProfileTest, ShellExecPushPullInstallAndSnapshotWork) {
  test::TempDir local;
  VirtualDeviceOptions options;
  apply_profile(options, GetParam());
  VirtualDevice vd(options);
  vd.start();
  Device device = Device::connect(vd.target());
  const ConnectionInfo info = device.connection_info();
  EXPECT_EQ(info.version, std::min(options.protocol_version, protocol::kVersion));
  EXPECT_EQ(info.max_payload, std::min(options.max_payload, protocol::kMaxPayload));

  // shell: separate stderr and the exit status only with shell_v2; a legacy PTY's "\r\n".
  const ShellResult shell = device.shell("echo out; echo err >&2; exit 3");
  const std::string nl = options.legacy_pty ? "\r\n" : "\n";
  if (device.has_feature("shell_v2")) {
    EXPECT_EQ(shell.out, "out\n");
    EXPECT_EQ(shell.err, "err\n");
    EXPECT_EQ(shell.exit_code, 3);
  } else {
    EXPECT_EQ(shell.out, "out" + nl + "err" + nl);
    EXPECT_EQ(shell.exit_code, -1);
  }

  // push then pull: every byte value, more than one max payload, mode kept.
  const std::string content = random_bytes(70000, 3);
  std::ofstream(local.path() / "up.bin", std::ios::binary) << content;
  fs::permissions(local.path() / "up.bin", fs::perms(0640));
  push(device, local.path() / "up.bin", "/sdcard/up.bin");
  EXPECT_EQ(test::read_file(vd.root() / "sdcard/up.bin"), content);
  pull(device, "/sdcard/up.bin", local.path() / "down.bin");
  EXPECT_EQ(test::read_file(local.path() / "down.bin"), content);
  EXPECT_EQ(fs::status(local.path() / "down.bin").permissions() & fs::perms::all, fs::perms(0640));

  // exec: binary safe, whether the device has exec: or not.
  EXPECT_EQ(device.exec("cat /sdcard/up.bin"), content);

  // install: streamed with cmd, push + pm without.
  const fs::path apk = local.path() / "app.apk";
  std::ofstream(apk, std::ios::binary) << "PK\x03\x04 package=com.example.profile versionCode=1\n"
                                       << random_bytes(20000, 5);
  EXPECT_NE(install(device, {apk}).find("Success"), std::string::npos);
  EXPECT_NE(device.shell("pm list packages").out.find("package:com.example.profile"),
            std::string::npos);

  // snapshot: uiautomator's dump read back over exec (or its fallback).
  Page page(std::move(device));
  const ui::Snapshot& snapshot = page.snapshot();
  EXPECT_FALSE(snapshot.find(ui::FindField::text, "Add", ui::MatchMode::exact).empty())
      << snapshot.to_text();
}

INSTANTIATE_TEST_SUITE_P(Profiles, ProfileTest, ::testing::ValuesIn(profile_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(Profiles, UnknownProfileNamesTheKnownOnes) {
  VirtualDeviceOptions options;
  try {
    apply_profile(options, "android-1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("android-4"), std::string::npos) << e.what();
  }
}

TEST(Profiles, ChecksumProfileDropsAMessageWithABadChecksum) {
  VirtualDeviceOptions options;
  apply_profile(options, "checksum");
  VirtualDevice vd(options);
  vd.start();
  const int fd = test::connect_loopback(vd.port());
  ASSERT_GE(fd, 0);
  // A CNXN whose data_check is one off: an old adbd drops the connection without answering.
  std::vector<std::uint8_t> cnxn;
  const std::string banner = "host::";
  protocol::append_message(
      cnxn, protocol::kCommandCnxn, protocol::kVersionMin, protocol::kMaxPayloadV1,
      std::span(reinterpret_cast<const std::uint8_t*>(banner.data()), banner.size()), true);
  cnxn[16] ^= 1;
  ASSERT_EQ(::write(fd, cnxn.data(), cnxn.size()), static_cast<ssize_t>(cnxn.size()));
  char byte = 0;
  EXPECT_EQ(::read(fd, &byte, 1), 0) << "the device answered a CNXN with a bad checksum";
  ::close(fd);
}

// AOSP's own host code accepts the oldest profile: checksums, 4 KiB, no features, no exec.
TEST(Profiles, RealAdbAcceptsTheAndroid4Profile) {
  test::AdbServerProcess server;
  ASSERT_EQ(server.start(), "");
  VirtualDeviceOptions options;
  apply_profile(options, "android-4");
  VirtualDevice vd(options);
  vd.start();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
  ASSERT_EQ(server.connect_and_wait(serial), "");
  const test::ProcessResult shell = server.adb({"-s", serial, "shell", "echo hi"});
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  EXPECT_EQ(shell.out, "hi\r\n");
  const std::string content = random_bytes(10000, 9);
  std::ofstream(vd.root() / "sdcard/old.bin", std::ios::binary) << content;
  const fs::path local = server.temp() / "old.bin";
  const test::ProcessResult pulled =
      server.adb({"-s", serial, "pull", "/sdcard/old.bin", local.string()});
  EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_EQ(test::read_file(local), content);
  const test::ProcessResult features = server.adb({"-s", serial, "features"});
  EXPECT_EQ(features.out, "") << "the device offers no features";
}

}  // namespace
}  // namespace adbwire
