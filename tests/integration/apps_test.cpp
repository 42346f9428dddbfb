// install/uninstall against the virtual device: streamed (exec:cmd and abb_exec), split
// sessions, the push + pm fallback, and the package manager's failures word for word; then
// launch_app, stop_app, foreground_activity and list_packages (apps.hpp) on a Device alone.
//
// The virtual device reads "package=NAME" and "versionCode=N" markers from an APK instead of
// a binary manifest (src/vdevice/install_commands.hpp), so the APKs here are small files.
#include "adbwire/apps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/install.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

class AppsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = fs::temp_directory_path() / ("adbwire-apps-test-" + std::to_string(random()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // An APK stand-in of `size` bytes: a zip signature, the manifest markers, then filler.
  fs::path apk(const std::string& name, const std::string& package, int version,
               std::size_t size = 300 * 1024) {
    std::string bytes =
        "PK\x03\x04 package=" + package + " versionCode=" + std::to_string(version) + "\n";
    std::mt19937 random(static_cast<unsigned>(size));
    while (bytes.size() < size) bytes.push_back(static_cast<char>('a' + random() % 26));
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  static std::vector<std::string> packages(Device& device) {
    const std::string out = device.shell("pm list packages").out;
    std::vector<std::string> names;
    std::size_t at = 0;
    while ((at = out.find("package:", at)) != std::string::npos) {
      const std::size_t end = out.find('\n', at);
      names.push_back(out.substr(at + 8, end - at - 8));
      at = end;
    }
    return names;
  }

  static bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  fs::path dir_;
};

TEST_F(AppsTest, StreamedInstallSendsEveryByteAndReportsProgress) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const fs::path file = apk("app.apk", "com.example.one", 1);
  std::uint64_t last = 0;
  std::uint64_t calls = 0;
  const std::string answer =
      install(device, {file}, {}, [&](std::uint64_t sent, std::uint64_t total) {
        EXPECT_GE(sent, last);
        EXPECT_EQ(total, fs::file_size(file));
        last = sent;
        ++calls;
      });
  EXPECT_EQ(answer, "Success\n");
  EXPECT_EQ(last, fs::file_size(file));
  EXPECT_GT(calls, 1u);
  EXPECT_TRUE(has(packages(device), "com.example.one"));
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(),
                      "cmd package install -S " + std::to_string(fs::file_size(file)) + " -r"),
            events.end());
}

TEST_F(AppsTest, DowngradeFailureReachesTheCallerWordForWord) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  install(device, {apk("v2.apk", "com.example.app", 2)});
  std::error_code error;
  install(device, {apk("v1.apk", "com.example.app", 1)}, {}, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  try {
    install(device, {apk("v1.apk", "com.example.app", 1)});
    FAIL() << "a downgrade without -d must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find(
                  "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update "
                  "version code 1 is older than current 2]"),
              std::string::npos)
        << e.what();
  }
  InstallOptions downgrade;
  downgrade.downgrade = true;
  EXPECT_EQ(install(device, {apk("v1.apk", "com.example.app", 1)}, downgrade), "Success\n");
}

TEST_F(AppsTest, SplitApksGoThroughOneSession) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const std::vector<fs::path> splits{apk("base.apk", "com.example.split", 7),
                                     apk("config.xxhdpi.apk", "", 7, 70000),
                                     apk("config.en.apk", "", 7, 5000)};
  std::uint64_t total = 0;
  for (const auto& split : splits) total += fs::file_size(split);
  std::uint64_t last = 0;
  EXPECT_EQ(install(device, splits, {}, [&](std::uint64_t sent, std::uint64_t) { last = sent; }),
            "Success\n");
  EXPECT_EQ(last, total);
  EXPECT_TRUE(has(packages(device), "com.example.split"));
  const auto events = vd.events();
  const auto count = [&](const std::string& prefix) {
    return std::count_if(events.begin(), events.end(),
                         [&](const std::string& e) { return e.starts_with(prefix); });
  };
  EXPECT_EQ(count("cmd package install-create -S " + std::to_string(total)), 1);
  EXPECT_EQ(count("cmd package install-write -S "), 3);
  EXPECT_EQ(count("cmd package install-commit "), 1);
}

TEST_F(AppsTest, FailedSplitCommitIsAbandonedAndExplained) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  install(device, {apk("base.apk", "com.example.split", 9)});
  try {
    install(device, {apk("old.apk", "com.example.split", 3), apk("config.apk", "", 3, 1000)});
    FAIL() << "the commit of a downgrade must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("INSTALL_FAILED_VERSION_DOWNGRADE"), std::string::npos)
        << e.what();
  }
}

TEST_F(AppsTest, AbbExecIsUsedWhenTheDeviceOffersIt) {
  VirtualDeviceOptions options;
  options.features = {"shell_v2", "cmd", "abb_exec", "stat_v2", "ls_v2", "sendrecv_v2"};
  VirtualDevice vd(options);
  vd.start();
  Device device = Device::connect(vd.target());
  const fs::path file = apk("app.apk", "com.example.abb", 1);
  EXPECT_EQ(install(device, {file}), "Success\n");
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(),
                      "cmd package install -S " + std::to_string(fs::file_size(file)) + " -r"),
            events.end());
  EXPECT_TRUE(has(packages(device), "com.example.abb"));
}

TEST_F(AppsTest, DevicesWithoutCmdGetPushThenPmInstall) {
  VirtualDeviceOptions options;
  options.features = {"shell_v2", "stat_v2", "ls_v2", "sendrecv_v2"};
  VirtualDevice vd(options);
  vd.start();
  Device device = Device::connect(vd.target());
  std::uint64_t last = 0;
  const fs::path file = apk("my app.apk", "com.example.old", 1);
  const std::string answer =
      install(device, {file}, {}, [&](std::uint64_t sent, std::uint64_t) { last = sent; });
  EXPECT_NE(answer.find("Success"), std::string::npos);
  EXPECT_EQ(last, fs::file_size(file));
  EXPECT_TRUE(has(packages(device), "com.example.old"));
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(), "pm install -r /data/local/tmp/my_app.apk"),
            events.end());
  EXPECT_FALSE(fs::exists(vd.root() / "data/local/tmp/my_app.apk"));

  std::error_code error;
  install(device, {file, file}, {}, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  InstallOptions streamed;
  streamed.method = InstallMethod::streamed;
  install(device, {file}, streamed, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
}

TEST_F(AppsTest, UninstallRemovesAndPassesFailuresThrough) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  install(device, {apk("app.apk", "com.example.gone", 1)});
  EXPECT_EQ(uninstall(device, "com.example.gone", true), "Success\n");
  EXPECT_FALSE(has(packages(device), "com.example.gone"));
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(), "pm uninstall -k com.example.gone"),
            events.end());
  try {
    uninstall(device, "com.example.gone");
    FAIL() << "uninstalling a missing package must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("Failure [DELETE_FAILED_INTERNAL_ERROR]"),
              std::string::npos)
        << e.what();
  }
  std::error_code error;
  uninstall(device, "bad;name", false, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

TEST_F(AppsTest, MissingApkAndBadOptionsAreCallerErrors) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  std::error_code error;
  install(device, {dir_ / "missing.apk"}, {}, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
  install(device, {}, {}, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  InstallOptions bad;
  bad.extra_args = {"--user", "0; reboot"};
  install(device, {apk("a.apk", "com.example.a", 1)}, bad, {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

// ---- the app services without a Page

std::string last_event(const VirtualDevice& vd) {
  const auto events = vd.events();
  return events.empty() ? std::string() : events.back();
}

VirtualDeviceOptions demo_device(std::uint32_t api_level) {
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  options.api_level = api_level;
  return options;
}

TEST_F(AppsTest, LaunchAndStopSendTheirCommandsAndRefuseBadNames) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  launch_app(device, "com.android.settings");
  EXPECT_EQ(last_event(vd), "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1");
  launch_app(device, "com.example.adbwire.demo", ".Main");
  EXPECT_EQ(last_event(vd), "am start -n com.example.adbwire.demo/.Main");
  stop_app(device, "com.example.adbwire.demo");
  EXPECT_EQ(last_event(vd), "am force-stop com.example.adbwire.demo");

  const std::size_t before = vd.events().size();
  std::error_code error;
  launch_app(device, "x; reboot", {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_NE(last_error_detail().find("'x; reboot' is not a package/activity name"),
            std::string::npos)
      << last_error_detail();
  stop_app(device, "com.example$x", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_EQ(vd.events().size(), before);
  stop_app(device, "com.example.adbwire.demo", kDefaultDeadline, error);
  EXPECT_FALSE(error);
  EXPECT_EQ(last_error_detail(), "");
}

// The virtual device prints the resumed activity as the API level it imitates does: one
// `mResumedActivity:` before Android 10, `topResumedActivity=` from Android 10, and from
// Android 14 records that close their brace after the component.
TEST_F(AppsTest, ForegroundActivityIsReadInEachAndroidVersionsForm) {
  for (const std::uint32_t api : {28U, 30U, 34U}) {
    VirtualDevice vd(demo_device(api));
    vd.start();
    Device device = Device::connect(vd.target());
    const ForegroundActivity now = foreground_activity(device);
    EXPECT_EQ(now.package, "com.example.adbwire.demo") << "API " << api;
    EXPECT_EQ(now.activity, ".ListActivity") << "API " << api;
  }
}

TEST_F(AppsTest, ListPackagesIsSortedAndFollowsInstalls) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  EXPECT_EQ(list_packages(device), std::vector<std::string>{"com.example.adbwire.demo"});
  install(device, {apk("b.apk", "com.b.app", 1)});
  install(device, {apk("a.apk", "com.a.app", 1)});
  EXPECT_EQ(list_packages(device),
            (std::vector<std::string>{"com.a.app", "com.b.app", "com.example.adbwire.demo"}));
  // pm's kinds: every package of the virtual device is one the user installed.
  EXPECT_EQ(list_packages(device, PackageKind::third_party), list_packages(device));
  EXPECT_TRUE(list_packages(device, PackageKind::system).empty());
  const auto sent = vd.events();
  EXPECT_NE(std::find(sent.begin(), sent.end(), "pm list packages -s"), sent.end());
  // The error_code overload of a call whose connection is gone: the code, the detail, nothing.
  device.close();
  std::error_code error;
  EXPECT_TRUE(list_packages(device, kDefaultDeadline, error).empty());
  EXPECT_EQ(error, errc::closed);
  EXPECT_NE(last_error_detail(), "");
}

}  // namespace
}  // namespace adbwire
