// Windows and the comment lines: the app named first, keyboards, system bars and overlays
// after the app's content, and the note for a screen with nothing to act on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"
#include "unit/ui/yaml_tree.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::group;
using test::N;
using test::text;
using test::window;
using ::testing::HasSubstr;

constexpr const char* kNoElement =
    " (a game or a custom-drawn screen): use a screenshot and tap by coordinates\n";

N image(std::string desc, bool clickable = false) {
  N n;
  n.cls = "android.widget.ImageView";
  n.desc = std::move(desc);
  n.clickable = clickable;
  return n;
}

// An all-windows dump as uiautomator2 writes it: windows in no particular order, each a
// top-level node with its package.
std::string all_windows() {
  N back = image("Back", true);
  back.cls = "android.widget.ImageButton";
  N message = test::field("Message");
  message.focused = true;
  return test::dump({
      window("com.android.systemui", "[0,0][1080,100]",
             {text("12:30"), image("Battery 80 percent.")}),
      window("com.google.android.inputmethod.latin", "[0,1500][1080,2300]",
             {button("q"), button("w")}),
      window("com.example", "[0,0][1080,2400]", {message, button("Send")}),
      window("com.android.systemui", "[0,2300][1080,2400]", {back}),
      window("com.facebook.orca", "[900,500][1000,600]", {image("Chat head", true)}),
  });
}

TEST(Windows, TheAppComesFirstAndTheOtherWindowsFollowMarked) {
  const Snapshot s = parse_dump(all_windows());
  EXPECT_EQ(s.to_text(),
            "# app: com.example, keyboard shown\n"
            "- Group:\n"
            "  - TextInput [ref=1] \"\" hint=\"Message\" [focused]\n"
            "  - Button [ref=2] \"Send\"\n"
            "# keyboard: com.google.android.inputmethod.latin\n"
            "- Group:\n"
            "  - Button [ref=3] \"q\"\n"
            "  - Button [ref=4] \"w\"\n"
            "# overlay: com.facebook.orca\n"
            "- Image [ref=5] (Chat head)\n"
            "# status bar: com.android.systemui\n"
            "- Group:\n"
            "  - Text \"12:30\"\n"
            "  - Image (Battery 80 percent.)\n"
            "# navigation bar: com.android.systemui\n"
            "- ImageButton [ref=6] (Back)\n");
  ASSERT_EQ(s.windows().size(), 5u);
  const WindowKind order[] = {WindowKind::app, WindowKind::keyboard, WindowKind::overlay,
                              WindowKind::status_bar, WindowKind::navigation_bar};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(s.windows()[i].kind, order[i]) << i;
  EXPECT_EQ(s.windows()[0].package, "com.example");
  EXPECT_EQ(s.app().package, "com.example");
  EXPECT_TRUE(s.app().inferred);
  EXPECT_TRUE(s.app().keyboard);
  std::vector<test::YamlItem> items;
  std::string error;
  ASSERT_TRUE(test::read_yaml_tree(s.to_text(), items, error)) << error;
  EXPECT_EQ(items, test::line_tree(s.to_text()));
}

TEST(Windows, JsonCarriesTheAppAndTheWindowKinds) {
  const auto json = nlohmann::json::parse(parse_dump(all_windows()).to_json());
  EXPECT_EQ(json["app"]["package"], "com.example");
  EXPECT_EQ(json["app"]["inferred"], true);
  EXPECT_EQ(json["app"]["keyboard"], true);
  EXPECT_FALSE(json.contains("note"));
  EXPECT_EQ(json["nodes"][0]["children"][1]["text"], "Send");
  ASSERT_EQ(json["windows"].size(), 4u);
  const char* kinds[] = {"keyboard", "overlay", "status_bar", "navigation_bar"};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(json["windows"][i]["kind"], kinds[i]);
  EXPECT_EQ(json["windows"][0]["package"], "com.google.android.inputmethod.latin");
  EXPECT_EQ(json["windows"][0]["nodes"][0]["children"][0]["ref"], 3);
  EXPECT_EQ(json["windows"][3]["nodes"][0]["desc"], "Back");
}

TEST(Windows, TheCallerNamesTheAppAndItsActivity) {
  SnapshotOptions options;
  options.app_package = "com.example";
  options.app_activity = "com.example/.ComposeActivity";
  const Snapshot s = parse_dump(all_windows(), options);
  EXPECT_TRUE(s.to_text().starts_with(
      "# app: com.example (com.example/.ComposeActivity), keyboard shown\n- Group:\n"));
  EXPECT_FALSE(s.app().inferred);
  EXPECT_EQ(s.app().activity, "com.example/.ComposeActivity");
  // An activity alone names its package.
  SnapshotOptions activity_only;
  activity_only.app_activity = "com.facebook.orca/.ChatHeadsActivity";
  const Snapshot chat = parse_dump(all_windows(), activity_only);
  EXPECT_EQ(chat.app().package, "com.facebook.orca");
  EXPECT_THAT(chat.to_text(), HasSubstr("# app: com.facebook.orca "
                                        "(com.facebook.orca/.ChatHeadsActivity), keyboard shown\n"
                                        "- Image [ref=1] (Chat head)\n# keyboard:"));
  EXPECT_THAT(chat.to_text(), HasSubstr("# overlay: com.example\n- Group:\n  - TextInput [ref=4]"));
}

TEST(Windows, AGivenAppWithNoWindowIsNamedBesideWhatTheScreenShows) {
  SnapshotOptions options;
  options.app_package = "com.other";
  const Snapshot s = parse_dump(test::dump(button("OK")), options);
  EXPECT_EQ(s.to_text(), "# app: com.other, screen shows com.example\n- Button [ref=1] \"OK\"\n");
  EXPECT_EQ(s.app().shown, "com.example");
  EXPECT_EQ(s.windows()[0].kind, WindowKind::app);
  EXPECT_EQ(nlohmann::json::parse(s.to_json())["app"]["shown"], "com.example");
}

TEST(Windows, AGameScreenSaysToUseAScreenshot) {
  // Unity's one big surface inside empty layouts, as in the corpus' game dumps.
  N surface;
  surface.cls = "android.view.SurfaceView";
  surface.package = "com.maleo.game";
  N root = group({group({group({surface})})});
  test::set_package(root, "com.maleo.game");
  root.bounds = "[0,0][1436,720]";
  const Snapshot s = parse_dump(test::dump(root));
  EXPECT_EQ(s.to_text(), std::string("# app: com.maleo.game\n# no element to act on in "
                                     "com.maleo.game") +
                             kNoElement);
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_THAT(json["note"].get<std::string>(),
              HasSubstr("use a screenshot and tap by coordinates"));
  EXPECT_TRUE(json["nodes"].empty());
  // A described surface is still shown, after the note.
  root.kids[0].kids[0].kids[0].desc = "Game view";
  EXPECT_EQ(parse_dump(test::dump(root)).to_text(),
            std::string("# app: com.maleo.game\n# no element to act on in com.maleo.game") +
                kNoElement + "- SurfaceView (Game view)\n");
}

TEST(Windows, TheNoteIsAboutTheAppEvenWhenOtherWindowsHaveRefs) {
  const Snapshot s = parse_dump(test::dump({
      window("com.game", "[0,0][1080,2400]", {text("Loading")}),
      window("com.android.systemui", "[0,2300][1080,2400]", {image("Home", true)}),
  }));
  EXPECT_EQ(s.to_text(), std::string("# app: com.game\n# no element to act on in com.game") +
                             kNoElement +
                             "- Text \"Loading\"\n# navigation bar: com.android.systemui\n"
                             "- Image [ref=1] (Home)\n");
}

TEST(Windows, SystemUiStripsAreBarsByWhereTheyLie) {
  // A landscape screen: the navigation bar on the right edge, a small indicator on the left.
  const Snapshot s = parse_dump(test::dump({
      window("com.android.systemui", "[0,505][99,575]", {image("Camera in use")}),
      window("com.android.systemui", "[0,0][1920,72]", {text("9:41")}),
      window("com.android.systemui", "[1776,0][1920,1080]", {image("Back", true)}),
      window("com.scheler.superproxy", "[0,0][1920,1080]", {button("Start")}),
  }));
  EXPECT_EQ(s.to_text(),
            "# app: com.scheler.superproxy\n"
            "- Button [ref=1] \"Start\"\n"
            "# system: com.android.systemui\n"
            "- Image (Camera in use)\n"
            "# status bar: com.android.systemui\n"
            "- Text \"9:41\"\n"
            "# navigation bar: com.android.systemui\n"
            "- Image [ref=2] (Back)\n");
}

TEST(Windows, EmptyWindowsPrintNothingAndRunsShareOneLine) {
  N gesture;
  gesture.cls = "android.view.View";
  const Snapshot s = parse_dump(test::dump({
      window("com.example", "[0,0][1080,2400]", {button("OK")}),
      window("gesture", "[0,108][38,2388]", {gesture}),
      window("com.whatsapp", "[800,400][1000,600]", {image("Chat bubble", true)}),
      window("com.whatsapp", "[800,700][1000,900]", {image("Close bubble", true)}),
  }));
  EXPECT_EQ(s.to_text(),
            "# app: com.example\n"
            "- Button [ref=1] \"OK\"\n"
            "# overlay: com.whatsapp\n"
            "- Image [ref=2] (Chat bubble)\n"
            "- Image [ref=3] (Close bubble)\n");
}

TEST(Windows, TheAppIsTheLargestWindowThatIsNeitherKeyboardNorSystemUi) {
  // Only System UI: the lock screen is the app.
  const Snapshot lock = parse_dump(
      test::dump({window("com.android.systemui", "[0,0][1080,2400]", {text("Swipe to unlock")})}));
  EXPECT_TRUE(lock.to_text().starts_with("# app: com.android.systemui\n"));
  EXPECT_EQ(lock.windows()[0].kind, WindowKind::app);
  // A big keyboard does not win over a smaller app window.
  const Snapshot popup = parse_dump(test::dump({
      window("com.touchtype.swiftkey", "[0,0][1080,2400]", {button("a")}),
      window("com.example", "[0,0][1080,1200]", {button("OK")}),
  }));
  EXPECT_TRUE(popup.to_text().starts_with(
      "# app: com.example, keyboard shown\n- Button [ref=1] \"OK\"\n# keyboard: "
      "com.touchtype.swiftkey\n"));
}

TEST(Windows, KeyboardPackagesAreRecognisedByName) {
  for (const char* ime :
       {"com.google.android.inputmethod.latin", "com.google.android.inputmethod.japanese",
        "com.android.inputmethod.latin", "com.samsung.android.honeyboard",
        "com.sec.android.inputmethod", "com.touchtype.swiftkey", "com.baidu.input",
        "com.baidu.input_huawei", "com.sohu.inputmethod.sogou", "com.sohu.inputmethod.sogou.xiaomi",
        "com.iflytek.inputmethod", "com.tencent.qqpinyin", "com.tencent.wetype",
        "com.huawei.ohos.inputmethod", "com.menny.android.anysoftkeyboard",
        "org.pocketworkstation.pckeyboard", "com.example.ime", "ru.yandex.androidkeyboard"}) {
    EXPECT_TRUE(is_keyboard_package(ime)) << ime;
  }
  for (const char* app : {"com.example", "com.android.systemui", "com.anime.player",
                          "com.baidu.searchbox", "com.baidu.inputs", "com.whatsapp", "",
                          "com.imei.check", "com.example.timer", "com.tencent.mm"}) {
    EXPECT_FALSE(is_keyboard_package(app)) << app;
  }
  EXPECT_EQ(to_string(WindowKind::navigation_bar), "navigation bar");
}

TEST(Windows, ADumpWithoutPackagesHasNoAppLine) {
  const Snapshot s = parse_dump(
      R"(<hierarchy><node class="android.widget.Button" text="Go" clickable="true"/></hierarchy>)");
  EXPECT_EQ(s.to_text(), "- Button [ref=1] \"Go\"\n");
  EXPECT_TRUE(s.app().package.empty());
  EXPECT_EQ(nlohmann::json::parse(s.to_json())["app"], nlohmann::json::object());
}

TEST(Windows, PackageNamesFromTheDeviceStayOnTheirLine) {
  const Snapshot s = parse_dump(test::dump({
      window("com.example", "[0,0][1080,2400]", {button("OK")}),
      window("evil\npackage", "[0,0][10,10]", {button("x")}),
  }));
  EXPECT_THAT(s.to_text(), HasSubstr("# overlay: evil\\npackage\n- Button [ref=2] \"x\"\n"));
}

// The screen of README.md's "The snapshot format": the README shows what this prints.
std::string readme_screen() {
  N up = image("Navigate up", true);
  up.cls = "android.widget.ImageButton";
  N name = test::field("Item name");
  name.focused = true;
  N pin = test::field("PIN");
  pin.password = true;
  N gift;
  gift.cls = "androidx.appcompat.widget.SwitchCompat";
  gift.text = "Gift wrap";
  gift.clickable = true;
  gift.checkable = true;
  gift.checked = true;
  N voice = image("Record voice note");
  voice.cls = "android.widget.ImageButton";
  voice.long_clickable = true;
  N apples = text("Apples");
  apples.desc = "Apples";
  N plums = text("Plums");
  plums.bounds = "[0,1400][1080,1500]";
  plums.extra = R"(visible-to-user="false")";
  N recent = group({apples, text("Pears"), plums});
  recent.cls = "androidx.recyclerview.widget.RecyclerView";
  recent.scrollable = true;
  recent.bounds = "[0,1000][1080,1400]";
  N del = image("Delete", true);
  del.cls = "android.widget.ImageButton";
  N back = image("Back", true);
  back.cls = "android.widget.ImageButton";
  N home = image("Home", true);
  home.cls = "android.widget.ImageButton";
  return test::dump({
      window("com.android.systemui", "[0,0][1080,100]",
             {text("12:30"), image("Battery 80 percent.")}),
      window("com.example.shop", "[0,0][1080,2400]",
             {up, text("New item"), name, test::field("Quantity", "Quantity"), pin, gift, voice,
              recent}),
      window("com.google.android.inputmethod.latin", "[0,1500][1080,2300]",
             {button("q"), button("w"), del}),
      window("com.android.systemui", "[0,2300][1080,2400]", {back, home}),
  });
}

TEST(Readme, TheSnapshotFormatExampleIsWhatASnapshotPrints) {
  const std::filesystem::path path = std::filesystem::path(ADBWIRE_SOURCE_DIR) / "README.md";
  std::ifstream in(path, std::ios::binary);
  const std::string readme{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t section = readme.find("\n## The snapshot format\n");
  ASSERT_NE(section, std::string::npos) << path;
  const std::size_t open = readme.find("```yaml\n", section);
  ASSERT_NE(open, std::string::npos);
  const std::size_t begin = open + 8;
  const std::string example = readme.substr(begin, readme.find("```\n", begin) - begin);
  SnapshotOptions options;
  options.app_package = "com.example.shop";
  options.app_activity = "com.example.shop/.AddItemActivity";
  EXPECT_EQ(parse_dump(readme_screen(), options).to_text(), example);
}

}  // namespace
}  // namespace adbwire::ui
