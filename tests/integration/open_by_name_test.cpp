// Open by name: `launch` takes an app's label on a virtual device that has real APKs installed
// (tests/data/apk, built by aapt), with labels from the on-device dumper and, without it, read on
// the host from the parts of each APK its label needs, read by ranges (`dd`), or pulled whole where
// the device reads no ranges; older Androids list versionCodes through dumpsys; ambiguous, unknown
// and unreadable names fail with a typed error that says what to do.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "adbwire/testing/vdevice.hpp"
#include "integration/padded_apk.hpp"
#include "integration/temp_dir.hpp"
#include "integration/tools_fixture.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;
using testing_tools::text_of;

const fs::path kApks = ADBWIRE_TEST_APK_DIR;
constexpr char kMonkey[] = "monkey -p com.example.groceries -c android.intent.category.LAUNCHER 1";

bool sent(const VirtualDevice& device, const std::string& line) {
  const auto events = device.events();
  return std::find(events.begin(), events.end(), line) != events.end();
}

int errc_of(const Json& result) { return result["_meta"]["adbwire/errc"].get<int>(); }

class OpenByName : public testing_tools::ToolsTest {
 protected:
  // A runtime folder of its own, so the label cache starts empty and no other test pulls into it.
  OpenByName() {
    fs::permissions(runtime_.path(), fs::perms::owner_all, fs::perm_options::replace);
    ::setenv("XDG_RUNTIME_DIR", runtime_.path().c_str(), 1);
    options_.apps = {{"com.example.groceries", 7, "Demo Groceries", kApks / "groceries.apk"},
                     {"com.example.freshgroceries", 3, "Fresh Groceries", kApks / "fresh.apk"}};
  }
  // "Demo Groceries" opens by name: the launch succeeds and monkey starts its package.
  void launches_the_demo_app(DeviceTools& tools, const VirtualDevice& device) {
    const Json launched = call(tools, "launch", {{"package", "Demo Groceries"}});
    ASSERT_FALSE(launched["isError"].get<bool>()) << text_of(launched);
    EXPECT_TRUE(sent(device, kMonkey));
  }
  // The ranges of the demo app's APK the device was asked for (its dd runs).
  static std::ptrdiff_t ranges_read(const VirtualDevice& device) {
    const auto events = device.events();
    return std::count_if(events.begin(), events.end(), [](const std::string& e) {
      return e.starts_with("dd if=/data/app/com.example.groceries-1/base.apk bs=65536 ");
    });
  }
  fs::path cache_file(const std::string& name) const {
    return runtime_.path() / "adbwire" / "app-labels" / name;
  }
  test::TempDir runtime_;
  VirtualDeviceOptions options_;
};

TEST_F(OpenByName, LabelReadFromTheApkWithoutTheDumper) {
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  const Json launched = call(tools, "launch", {{"package", "Demo Groceries"}});
  ASSERT_FALSE(launched["isError"].get<bool>()) << text_of(launched);
  EXPECT_NE(text_of(launched).find("Launched Demo Groceries (com.example.groceries)."),
            std::string::npos)
      << text_of(launched);
  EXPECT_TRUE(sent(device, kMonkey));

  // Kept per package and versionCode, privately: a second launch reads no APK (the device's copy
  // is gone and it still works).
  struct stat st {};
  ASSERT_EQ(::stat(cache_file("com.example.groceries-7").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(fs::remove(device.root() / "data/app/com.example.groceries-1/base.apk"));
  const Json again = call(tools, "launch", {{"package", "demo groceries"}});
  EXPECT_FALSE(again["isError"].get<bool>()) << text_of(again);
  // The pulled APKs were removed once read.
  for (const auto& entry : fs::directory_iterator(cache_file("").parent_path()))
    EXPECT_NE(entry.path().extension(), ".apk") << entry.path();
}

// The apps and their versionCodes come from one `pm list packages -3 --show-versioncode`, so a
// launch asks nothing more of an app whose label is cached (a `dumpsys package` per app takes
// 100-300 ms on a phone). The demo app has no APK to read, so it is asked again.
TEST_F(OpenByName, CachedLabelsCostOneListingAndNoCallPerApp) {
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  ASSERT_FALSE(call(tools, "launch", {{"package", "Demo Groceries"}})["isError"].get<bool>());
  const std::size_t before = device.events().size();
  const Json again = call(tools, "launch", {{"package", "Fresh Groceries"}});
  ASSERT_FALSE(again["isError"].get<bool>()) << text_of(again);
  const auto events = device.events();
  const std::vector<std::string> after(events.begin() + static_cast<std::ptrdiff_t>(before),
                                       events.end());
  EXPECT_EQ(std::count(after.begin(), after.end(), "pm list packages -3 --show-versioncode"), 1);
  for (const std::string& event : after) {
    EXPECT_FALSE(event.starts_with("dumpsys package")) << event;
    EXPECT_FALSE(event.starts_with("pm path com.example.groceries")) << event;
    EXPECT_FALSE(event.starts_with("pm path com.example.freshgroceries")) << event;
  }
}

TEST_F(OpenByName, LabelFromTheDumperWhereItRuns) {
  VirtualDevice device(options_);
  device.start();
  // The dumper's label (PackageManager's, in the phone's language) differs from the APK's default.
  device.set_app_label("com.example.groceries", "Demo Lebensmittel");
  DeviceToolsOptions o = options_for(device);
  o.page.helper = PageOptions::Helper::on;
  DeviceTools tools(o);
  const Json launched = call(tools, "launch", {{"package", "Demo Lebensmittel"}});
  ASSERT_FALSE(launched["isError"].get<bool>()) << text_of(launched);
  EXPECT_TRUE(sent(device, kMonkey));
}

TEST_F(OpenByName, PartOfANameOrATypoFindsTheApp) {
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  for (const char* name : {"Demo Grocerys", "fresh", "com.example.groceries"}) {
    const Json launched = call(tools, "launch", {{"package", name}});
    EXPECT_FALSE(launched["isError"].get<bool>()) << name << ": " << text_of(launched);
  }
  EXPECT_TRUE(sent(device, kMonkey));
  EXPECT_TRUE(
      sent(device, "monkey -p com.example.freshgroceries -c android.intent.category.LAUNCHER 1"));
}

TEST_F(OpenByName, AmbiguousNamesAreListed) {
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  const Json result = call(tools, "launch", {{"package", "Groceries"}});
  ASSERT_TRUE(result["isError"].get<bool>()) << text_of(result);
  EXPECT_EQ(errc_of(result), static_cast<int>(errc::invalid_argument));
  const std::string text = text_of(result);
  EXPECT_NE(text.find("matches 2 apps"), std::string::npos) << text;
  EXPECT_NE(text.find("\"Demo Groceries\" (com.example.groceries)"), std::string::npos) << text;
  EXPECT_NE(text.find("\"Fresh Groceries\" (com.example.freshgroceries)"), std::string::npos)
      << text;
  const auto events = device.events();
  EXPECT_TRUE(std::none_of(events.begin(), events.end(),
                           [](const std::string& e) { return e.starts_with("monkey"); }));
}

TEST_F(OpenByName, NothingCloseNamesTheNearest) {
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  const Json result = call(tools, "launch", {{"package", "Fresh Grocer Market Place"}});
  ASSERT_TRUE(result["isError"].get<bool>()) << text_of(result);
  EXPECT_EQ(errc_of(result), static_cast<int>(errc::not_found));
  EXPECT_NE(text_of(result).find("the nearest is \"Fresh Groceries\""), std::string::npos)
      << text_of(result);
}

TEST_F(OpenByName, AMalformedApkIsATypedErrorNamingThePackage) {
  test::TempDir folder;
  const fs::path garbage = folder.path() / "garbage.apk";
  std::ofstream(garbage) << "PK\x03\x04 not really a zip";
  options_.apps.push_back({"com.example.broken", 1, "Broken Shop", garbage});
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  const Json result = call(tools, "launch", {{"package", "Broken Shop"}});
  ASSERT_TRUE(result["isError"].get<bool>()) << text_of(result);
  EXPECT_EQ(errc_of(result), static_cast<int>(errc::not_found));
  EXPECT_NE(text_of(result).find("com.example.broken: the APK is not a ZIP archive"),
            std::string::npos)
      << text_of(result);
  // The others still open by name, and the broken one by its package.
  EXPECT_FALSE(call(tools, "launch", {{"package", "Demo Groceries"}})["isError"].get<bool>());
  EXPECT_FALSE(call(tools, "launch", {{"package", "com.example.broken"}})["isError"].get<bool>());
}

// A 32 MiB APK (a big stored asset) is read by ranges: a few dd calls, and no byte of it goes
// through sync (the device drops the connection at the first byte of file content a pull gets).
TEST_F(OpenByName, ALargeApkIsReadByRangesNotPulled) {
  test::TempDir folder;
  const fs::path big = folder.path() / "big.apk";
  test::pad_apk(kApks / "groceries.apk", big, 32 * 1024 * 1024);
  options_.apps = {{"com.example.groceries", 7, "Demo Groceries", big}};
  options_.drop_after_bytes = 1;
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  launches_the_demo_app(tools, device);
  const std::ptrdiff_t ranges = ranges_read(device);
  EXPECT_GE(ranges, 1);
  EXPECT_LE(ranges, 6);
}

// A device without dd: the APKs are pulled whole, as before ranges, and the notes say so.
TEST_F(OpenByName, ADeviceWithoutDdPullsTheWholeApkAndSaysSo) {
  options_.missing_commands = {"dd"};
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  launches_the_demo_app(tools, device);
  ASSERT_TRUE(fs::remove(cache_file("com.example.freshgroceries-3")));
  const Json unknown = call(tools, "launch", {{"package", "Nothing Like It"}});
  ASSERT_TRUE(unknown["isError"].get<bool>()) << text_of(unknown);
  EXPECT_NE(text_of(unknown).find("com.example.freshgroceries: the device reads no ranges of a "
                                  "file (dd), so its whole APK"),
            std::string::npos)
      << text_of(unknown);
  for (const auto& entry : fs::directory_iterator(cache_file("").parent_path()))
    EXPECT_NE(entry.path().extension(), ".apk") << entry.path();
}

// Ranges answered wrongly (a byte short, without end, from elsewhere) are a typed error for that
// package, named with it; the other apps still open by name.
TEST_F(OpenByName, WrongRangesAreAnErrorNamingThePackage) {
  for (const HostileOutput mode :
       {HostileOutput::short_ranges, HostileOutput::long_ranges, HostileOutput::shifted_ranges}) {
    test::TempDir runtime;
    fs::permissions(runtime.path(), fs::perms::owner_all, fs::perm_options::replace);
    ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
    test::TempDir folder;
    const fs::path big = folder.path() / "big.apk";
    test::pad_apk(kApks / "groceries.apk", big, 1024 * 1024);
    options_.apps = {{"com.example.groceries", 7, "Demo Groceries", big}};
    options_.hostile_output = mode;
    VirtualDevice device(options_);
    device.start();
    DeviceTools tools(options_for(device));
    const Json result = call(tools, "launch", {{"package", "Demo Groceries"}});
    ASSERT_TRUE(result["isError"].get<bool>()) << to_string(mode) << ": " << text_of(result);
    EXPECT_EQ(errc_of(result), static_cast<int>(errc::not_found));
    EXPECT_NE(text_of(result).find("com.example.groceries: the device answered `dd if="),
              std::string::npos)
        << text_of(result);
    EXPECT_FALSE(sent(device, kMonkey));
  }
}

// Before Android 9, pm refuses --show-versioncode: the apps come from the plain list and each
// versionCode from `dumpsys package`, which keys the label's cache as before.
TEST_F(OpenByName, OlderAndroidWithoutShowVersioncode) {
  options_.api_level = 27;
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  launches_the_demo_app(tools, device);
  EXPECT_TRUE(sent(device, "pm list packages -3 --show-versioncode"));
  EXPECT_TRUE(sent(device, "pm list packages -3"));
  EXPECT_TRUE(fs::exists(cache_file("com.example.groceries-7")));
  EXPECT_TRUE(fs::exists(cache_file("com.example.freshgroceries-3")));
}

// A KitKat phone (no exec:, a PTY on every shell command, pm without --show-versioncode): the
// ranges come through the shell, whose newline translation is undone, so the bytes arrive
// intact and the label reads, with no byte pulled over sync.
TEST_F(OpenByName, AndroidFourReadsRangesThroughTheShell) {
  apply_profile(options_, "android-4");
  options_.drop_after_bytes = 1;
  VirtualDevice device(options_);
  device.start();
  DeviceTools tools(options_for(device));
  launches_the_demo_app(tools, device);
  EXPECT_GE(ranges_read(device), 1);
  EXPECT_TRUE(fs::exists(cache_file("com.example.groceries-7")));
}

}  // namespace
}  // namespace adbwire::mcp
