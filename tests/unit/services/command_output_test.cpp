// The parsers of what the device's tools print (dumpsys, pm, wm, settings, date), on output real
// devices printed: tests/unit/services/data/PROVENANCE.md says where each sample comes from.
// Formats for which no real sample was found are written here from the AOSP source, and say so.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "services/device_values.hpp"
#include "services/foreground_parser.hpp"
#include "services/package_list.hpp"
#include "services/property_list.hpp"

namespace adbwire::detail {
namespace {

std::string sample(const std::string& name) {
  const std::string path = std::string(ADBWIRE_SOURCE_DIR) + "/tests/unit/services/data/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "missing sample " << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void expect_activity(const std::optional<ForegroundActivity>& found, const std::string& package,
                     const std::string& activity) {
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->package, package);
  EXPECT_EQ(found->activity, activity);
}

// The line of text that contains needle.
std::string line_with(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  if (at == std::string::npos) return {};
  const std::size_t start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

// ---- dumpsys: the foreground activity

TEST(ForegroundParser, ResumedActivityOfAStackIsTheForegroundNotItsHistoryLines) {
  expect_activity(parse_foreground_activity(sample("activities_mresumed_xtc_watch.txt")),
                  "com.xtc.watch", ".view.home.activity.XtcHomeActivity");
}

TEST(ForegroundParser, FocusedAppOutranksTheFocusedWindow) {
  const std::string window = sample("window_focus_headunit.txt");
  expect_activity(parse_foreground_activity(window), "com.example", ".UI.play.PlayActivity");
  // The focused window alone: a launcher window of the same device.
  expect_activity(parse_foreground_activity(line_with(window, "mCurrentFocus=")),
                  "com.incall.apps.launcher", ".Launcher");
}

TEST(ForegroundParser, FocusedWindowsWithoutAnActivityAreSkipped) {
  const std::string polls = sample("window_current_focus_lookout.txt");
  expect_activity(parse_foreground_activity(polls), "com.lookout.enterprise",
                  ".ui.android.activity.StartActivity");
  EXPECT_FALSE(parse_foreground_activity(line_with(polls, "mCurrentFocus=null")));
  EXPECT_FALSE(parse_foreground_activity(line_with(polls, "Window{43e887a8")));
}

TEST(ForegroundParser, WindowTokensAreNoForegroundField) {
  // Android 13/14 `dumpsys window windows` names activities only in per-window fields.
  EXPECT_FALSE(parse_foreground_activity(sample("window_windows_bilibili.txt")));
  EXPECT_FALSE(parse_foreground_activity(sample("window_windows_galaxy_a70.txt")));
}

TEST(ForegroundParser, RecordsOfEachAndroidVersion) {
  // Android 14: the record's brace closes after the component, " t57}" follows.
  const std::string bili = sample("window_windows_bilibili.txt");
  expect_activity(parse_component_record(line_with(bili, "mActivityRecord=")), "tv.danmaku.bili",
                  ".MainActivityV2");
  expect_activity(parse_component_record(line_with(bili, "Window #25")), "tv.danmaku.bili",
                  ".MainActivityV2");
  // Android 10: nested in AppWindowToken; an activity of another package keeps its full name.
  expect_activity(
      parse_component_record(line_with(sample("window_windows_galaxy_a70.txt"), "mAppToken=")),
      "com.sec.android.app.launcher", "com.android.quickstep.RecentsActivity");
  // A current Android's logcat: the same toString(), a decimal-looking hash.
  expect_activity(parse_component_record(sample("logcat_activity_records_play_store.txt")),
                  "com.android.vending",
                  "com.google.android.finsky.activities.MarketDeepLinkHandlerActivity");
}

TEST(ForegroundParser, ModernActivityFieldsAsTheAospSourcePrintsThem) {
  // Not device output (no public sample with provenance was found): the fields Android 10+
  // prints (topResumedActivity=, and ResumedActivity: per display area), with records in the
  // Android 14 format of window_windows_bilibili.txt.
  const std::string android14 =
      "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
      "Display #0 (activities from top to bottom):\n"
      "  * Task{4f3c2a1 #57 type=standard A=10178:tv.danmaku.bili}\n"
      "    mLastPausedActivity: ActivityRecord{1a2b3c4 u0 com.android.launcher3/.Launcher} t1}\n"
      "    topResumedActivity=ActivityRecord{d9b8281 u0 tv.danmaku.bili/.MainActivityV2} t57}\n"
      "  ResumedActivity: ActivityRecord{d9b8281 u0 tv.danmaku.bili/.MainActivityV2} t57}\n";
  expect_activity(parse_foreground_activity(android14), "tv.danmaku.bili", ".MainActivityV2");
  EXPECT_FALSE(parse_foreground_activity("    mResumedActivity: null\n"));
  EXPECT_FALSE(parse_foreground_activity(""));
}

// ---- pm list packages

TEST(PackageList, NamesFollowTheLastEqualsSignWithDashF) {
  const std::vector<std::string> names =
      parse_package_list(sample("pm_list_packages_f_genymotion.txt"));
  ASSERT_EQ(names.size(), 16U);
  EXPECT_EQ(names.front(), "com.android.providers.downloads");
  EXPECT_EQ(names[2], "com.phonegap.camerasample");
  EXPECT_EQ(names[10], "android");
  EXPECT_EQ(names.back(), "com.android.backupconfirm");
}

TEST(PackageList, PlainAndAndroid11FormsAsTheAospSourcePrintsThem) {
  // Not device output (see PROVENANCE.md): PackageManagerShellCommand's line forms, with the
  // Android 11+ APK folder whose random parts may end in '='.
  EXPECT_EQ(parse_package_list("package:com.android.settings\r\npackage:android\n\nWARNING: x\n"),
            (std::vector<std::string>{"com.android.settings", "android"}));
  EXPECT_EQ(parse_package_list(
                "package:/data/app/~~Q2lw==/com.example.app-aGVsbG8=/base.apk=com.example.app\n"),
            (std::vector<std::string>{"com.example.app"}));
  EXPECT_EQ(parse_package_list("package:com.example.app uid:10123\n"
                               "package:com.other installer=com.android.vending\n"),
            (std::vector<std::string>{"com.example.app", "com.other"}));
  EXPECT_TRUE(parse_package_list("").empty());
}

// `pm list packages --show-versioncode` (Android 9+) gives each versionCode on the package's line;
// an older pm refuses the option and lists nothing.
TEST(PackageList, VersionCodesComeWithTheirPackages) {
  using Versions = std::vector<std::pair<std::string, std::optional<std::uint64_t>>>;
  EXPECT_EQ(parse_package_versions("package:com.android.settings versionCode:29\r\n"
                                   "package:com.example.app uid:10123 versionCode:7\n"
                                   "package:com.no.version\n"
                                   "package:com.bad versionCode:x\n"),
            (Versions{{"com.android.settings", 29},
                      {"com.example.app", 7},
                      {"com.no.version", std::nullopt},
                      {"com.bad", std::nullopt}}));
  EXPECT_TRUE(parse_package_versions("Error: Unknown option: --show-versioncode\n").empty());
}

// ---- getprop

TEST(PropertyList, EveryLineOfARealListingWithEmptyValues) {
  Failure failure;
  const auto props = parse_property_list(sample("getprop_android_p_emulator.txt"), failure);
  ASSERT_FALSE(failure) << failure.detail;
  EXPECT_EQ(props.size(), 37U);
  EXPECT_EQ(props.at("ro.build.version.sdk"), "27");
  EXPECT_EQ(props.at("ro.build.version.release"), "P");
  EXPECT_EQ(props.at("ro.build.version.base_os"), "");
  EXPECT_EQ(props.at("ro.crypto.fs_crypto_blkdev"), "/dev/block/dm-0");
  EXPECT_EQ(props.at("ro.kernel.android.qemud"), "1");
}

TEST(PropertyList, MultiLineValuesAndBrokenListings) {
  // Not device output: the forms the parser must also take or refuse.
  Failure failure;
  const auto props =
      parse_property_list("[a]: [line one\nline two]\n[b]: [x]\n\n[c]: [end]", failure);
  ASSERT_FALSE(failure) << failure.detail;
  EXPECT_EQ(props.at("a"), "line one\nline two");
  EXPECT_EQ(props.at("b"), "x");
  EXPECT_EQ(props.at("c"), "end");
  parse_property_list("[ok]: [1]\nnot a property\n", failure);
  EXPECT_EQ(failure.code, errc::parse_error);
  EXPECT_NE(failure.detail.find("at byte 10"), std::string::npos) << failure.detail;
}

// ---- wm size, settings get, date +%s

TEST(DeviceValues, DisplaySizeOfRealDevices) {
  const auto note3 = parse_display_size(sample("wm_size_galaxy_note3.txt"));
  ASSERT_TRUE(note3);
  EXPECT_EQ(note3->width, 640);
  EXPECT_EQ(note3->height, 480);
  const auto other = parse_display_size(sample("wm_size_scrcpy_1023.txt"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->width, 512);
  EXPECT_EQ(other->height, 480);
}

TEST(DeviceValues, OverrideSizeWinsAsTheAospSourcePrintsIt) {
  // Not device output: WindowManagerShellCommand prints the override after the physical size.
  const auto size = parse_display_size("Physical size: 1080x2400\nOverride size: 720x1600\n");
  ASSERT_TRUE(size);
  EXPECT_EQ(size->width, 720);
  EXPECT_EQ(size->height, 1600);
  EXPECT_FALSE(parse_display_size("Error: no display\n"));
}

TEST(DeviceValues, SettingValueAndUnsetKeyAsTheAospSourcePrintsThem) {
  // Not device output: SettingsService prints the value, or "null", then a line end.
  EXPECT_EQ(parse_setting_value("com.android.adbkeyboard/.AdbIME\n"),
            "com.android.adbkeyboard/.AdbIME");
  EXPECT_EQ(parse_setting_value("null\n"), "");
  EXPECT_EQ(parse_setting_value("1.5 x\r\n"), "1.5 x");
}

TEST(DeviceValues, EpochSecondsOrAParseErrorQuotingTheOutput) {
  // Not device output: toybox `date +%s` prints one number and a line end.
  Failure failure;
  EXPECT_EQ(parse_epoch_seconds("1718000000\n", failure).time_since_epoch(),
            std::chrono::seconds(1718000000));
  EXPECT_FALSE(failure);
  parse_epoch_seconds("Mon Jun 10 06:13:20 UTC 2024\n", failure);
  EXPECT_EQ(failure.code, errc::parse_error);
  EXPECT_NE(failure.detail.find("\"Mon Jun 10"), std::string::npos) << failure.detail;
}

}  // namespace
}  // namespace adbwire::detail
