// `adbwire doctor` run as a process: it reports USB (here: no bus, said plainly), the adb
// server (absent, then a real one from Debian's adb) and the adb key, exits 0, and changes
// nothing (no key is created).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "adbwire/keys.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

struct Home {
  Home() {
    path = fs::temp_directory_path() /
           ("adbwire-doctor-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~Home() { fs::remove_all(path); }
  static inline int counter = 0;
  fs::path path;
};

test::ProcessResult doctor(const fs::path& home, std::uint16_t server_port) {
  return test::run_process({ADBWIRE_CLI_PATH, "-P", std::to_string(server_port), "doctor"},
                           {"HOME=" + home.string(), "PATH=/usr/bin:/bin"}, {});
}

void expect_usb_section(const std::string& out) {
  EXPECT_NE(out.find("USB devices with an ADB interface:"), std::string::npos) << out;
  if (!fs::exists("/dev/bus/usb")) {
    EXPECT_NE(out.find("no USB bus visible (container/VM?): USB devices cannot be listed here"),
              std::string::npos)
        << out;
  }
}

TEST(DoctorCommand, ReportsEachCheckWithoutAServerOrAKeyAndCreatesNothing) {
  Home home;
  const std::uint16_t port = test::free_port();
  const auto result = doctor(home.path, port);
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  expect_usb_section(result.out);
  EXPECT_NE(result.out.find("adb server (127.0.0.1:" + std::to_string(port) + "):\n  not running"),
            std::string::npos)
      << result.out;
  const fs::path key = home.path / ".android" / "adbkey";
  EXPECT_NE(result.out.find(key.string() + ": missing"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(key)) << "doctor must not create a key";
}

TEST(DoctorCommand, ShowsTheKeyFingerprint) {
  Home home;
  fs::create_directories(home.path / ".android");
  const PrivateKey key = PrivateKey::generate();
  key.save(home.path / ".android" / "adbkey", "doctor@test");
  const auto result = doctor(home.path, test::free_port());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("present, fingerprint " + key.fingerprint()), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("1 key(s) will be offered"), std::string::npos) << result.out;
}

TEST(DoctorCommand, SeesARunningAdbServer) {
  test::AdbServerProcess server;
  ASSERT_EQ(server.start(), "");
  Home home;
  const auto result = doctor(home.path, server.port());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  expect_usb_section(result.out);
  EXPECT_NE(result.out.find("running, protocol version 41"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("server:SERIAL"), std::string::npos) << result.out;
}

// --helper tries the on-device dumper on a device, touching nothing: snapshots, whether it can
// inject touch, and app labels, each said plainly so a user can report it.
TEST(DoctorCommand, HelperReportsSnapshotsTouchAndLabels) {
  VirtualDevice vd;
  vd.start();
  Home home;
  const auto result = test::run_process({ADBWIRE_CLI_PATH, "-s", vd.target(), "doctor", "--helper"},
                                        {"HOME=" + home.path.string(), "PATH=/usr/bin:/bin"}, {});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("snapshots: in use"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("touch (taps, swipes, pinch): can inject"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("app labels: 1 apps read from PackageManager"), std::string::npos)
      << result.out;
  const std::vector<std::string> events = vd.events();
  EXPECT_TRUE(std::none_of(events.begin(), events.end(), [](const std::string& e) {
    return e.starts_with("dumper touch") || e.starts_with("input ");
  })) << "doctor must not touch the screen";

  VirtualDevice rejecting;
  rejecting.start();
  rejecting.set_dumper_fault(DumperFault::no_gestures);
  const auto rejected =
      test::run_process({ADBWIRE_CLI_PATH, "-s", rejecting.target(), "doctor", "--helper"},
                        {"HOME=" + home.path.string(), "PATH=/usr/bin:/bin"}, {});
  EXPECT_NE(rejected.out.find("touch: NOT working (`input` is used instead)"), std::string::npos)
      << rejected.out;
  EXPECT_NE(rejected.out.find("VerifyError"), std::string::npos) << rejected.out;
}

}  // namespace
}  // namespace adbwire
