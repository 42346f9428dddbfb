// What a node's line says: hints of empty fields, [password], text and desc not repeated,
// resource ids on request; the same facts in JSON and in a ref's label.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::field;
using test::group;
using test::N;
using test::text;

std::string render(const N& root, SnapshotOptions options = {}) {
  return test::node_lines(parse_dump(test::dump(root), options).to_text());
}

TEST(Label, AnEmptyFieldShowsItsHint) {
  EXPECT_EQ(render(group({field("Item name"), field("Quantity")})),
            "- Group:\n"
            "  - TextInput [ref=1] \"\" hint=\"Item name\"\n"
            "  - TextInput [ref=2] \"\" hint=\"Quantity\"\n");
}

TEST(Label, AFieldWhoseTextIsItsHintShowsEmptyWithTheHint) {
  // Older Android reports an empty field's hint as its text: it must not look typed.
  EXPECT_EQ(render(field("Search", "Search")), "- TextInput [ref=1] \"\" hint=\"Search\"\n");
  // Appium says so with showing-hint, with or without a hint attribute.
  N appium;
  appium.cls = "android.widget.EditText";
  appium.text = "Email address";
  appium.extra = R"(showing-hint="true")";
  EXPECT_EQ(render(appium), "- TextInput [ref=1] \"\" hint=\"Email address\"\n");
  appium.extra = R"(showing-hint="false")";
  EXPECT_EQ(render(appium), "- TextInput [ref=1] \"Email address\"\n");
}

TEST(Label, FieldTextIsWhatWasTyped) {
  const Snapshot s = parse_dump(test::dump(
      group({field("Name", "Name"), field("Name", "Ada"), field("Name"), text("Name")})));
  EXPECT_EQ(field_text(s.node(1)), "");
  EXPECT_EQ(field_text(s.node(2)), "Ada");
  EXPECT_EQ(field_text(s.node(3)), "");
  EXPECT_EQ(field_text(s.node(4)), "Name") << "not a field: its text";
}

TEST(Label, ATypedFieldShowsItsTextAndNoHint) {
  EXPECT_EQ(render(field("Item name", "apples")), "- TextInput [ref=1] \"apples\"\n");
  N plain;
  plain.cls = "android.widget.EditText";
  EXPECT_EQ(render(plain), "- TextInput [ref=1] \"\"\n") << "no hint known: just empty";
}

TEST(Label, PasswordFieldsSayPassword) {
  N empty = field("PIN");
  empty.password = true;
  N typed = field("Password", "••••••");
  typed.password = true;
  typed.focused = true;
  EXPECT_EQ(render(group({empty, typed})),
            "- Group:\n"
            "  - TextInput [ref=1] \"\" hint=\"PIN\" [password]\n"
            "  - TextInput [ref=2] \"••••••\" [password, focused]\n");
}

TEST(Label, TheDemoNewItemScreenTellsItsFieldsApart) {
  // The virtual device's "New item" screen: two empty fields that used to read the same.
  const std::filesystem::path add = std::filesystem::path(ADBWIRE_SOURCE_DIR) / "src" / "vdevice" /
                                    "screens" / "demo" / "add.xml";
  std::ifstream in(add, std::ios::binary);
  std::string xml{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(xml.empty()) << add;
  EXPECT_EQ(parse_dump(xml).to_text(),
            "# app: com.example.adbwire.demo\n"
            "- Group:\n"
            "  - Group:\n"
            "    - ImageButton [ref=1] (Navigate up)\n"
            "    - Text \"New item\"\n"
            "  - TextInput [ref=2] \"\" hint=\"Item name\"\n"
            "  - TextInput [ref=3] \"\" hint=\"Quantity\"\n"
            "  - CheckBox [ref=4] \"Urgent\"\n"
            "  - Button [ref=5] \"Save\"\n");
  SnapshotOptions ids;
  ids.show_ids = true;
  EXPECT_EQ(parse_dump(xml, ids).to_text(),
            "# app: com.example.adbwire.demo\n"
            "- Group#main:\n"
            "  - Group#toolbar:\n"
            "    - ImageButton [ref=1] (Navigate up)\n"
            "    - Text#title \"New item\"\n"
            "  - TextInput#name [ref=2] \"\" hint=\"Item name\"\n"
            "  - TextInput#quantity [ref=3] \"\" hint=\"Quantity\"\n"
            "  - CheckBox#urgent [ref=4] \"Urgent\"\n"
            "  - Button#save [ref=5] \"Save\"\n");
}

TEST(Label, TextAndDescAreNotRepeated) {
  N same = text("Film Director");
  same.desc = "Film Director";
  N other = text("4.8");
  other.desc = "Rated 4.8 of 5";
  N hinted = field("Your name");
  hinted.desc = "Your name";
  EXPECT_EQ(render(group({same, other, hinted})),
            "- Group:\n"
            "  - Text \"Film Director\"\n"
            "  - Text \"4.8\" (Rated 4.8 of 5)\n"
            "  - TextInput [ref=1] \"\" hint=\"Your name\"\n");
  // Repeats are judged on what is printed: these two lines read the same.
  N desc_only = text("Film Director");
  EXPECT_EQ(render(group({same, desc_only, text("x")})),
            "- Group:\n  - Text \"Film Director\"\n  - Text \"x\"\n");
}

TEST(Label, IdsOnRequestShortForTheNodesOwnPackage) {
  N save = button("Save");
  save.id = "com.example:id/save";
  N title = text("Network");
  title.id = "android:id/title";
  N foreign = text("Ad");
  foreign.id = "com.ads:id/banner";
  N none = text("plain");
  const N screen = group({save, title, foreign, none});
  SnapshotOptions ids;
  ids.show_ids = true;
  EXPECT_EQ(render(screen, ids),
            "- Group:\n"
            "  - Button#save [ref=1] \"Save\"\n"
            "  - Text#android:id/title \"Network\"\n"
            "  - Text#com.ads:id/banner \"Ad\"\n"
            "  - Text \"plain\"\n");
  EXPECT_EQ(render(screen),
            "- Group:\n  - Button [ref=1] \"Save\"\n  - Text \"Network\"\n  - Text \"Ad\"\n"
            "  - Text \"plain\"\n");
  // Siblings told apart only by their ids are repeats without ids, not with them.
  N a = text("•");
  a.id = "com.example:id/dot_a";
  N b = text("•");
  b.id = "com.example:id/dot_b";
  EXPECT_EQ(render(group({a, b}), ids), "- Group:\n  - Text#dot_a \"•\"\n  - Text#dot_b \"•\"\n");
  EXPECT_EQ(render(group({a, b})), "- Text \"•\"\n");
}

TEST(Label, JsonCarriesTheSameFacts) {
  N secret = field("PIN");
  secret.password = true;
  N placeholder = field("Search", "Search");
  const Snapshot s = parse_dump(test::dump(group({secret, placeholder})));
  const auto json = nlohmann::json::parse(s.to_json());
  const auto& kids = json["nodes"][0]["children"];
  EXPECT_EQ(kids[0]["text"], "");
  EXPECT_EQ(kids[0]["hint"], "PIN");
  EXPECT_EQ(kids[0]["states"], nlohmann::json::array({"password"}));
  EXPECT_EQ(kids[1]["text"], "") << "a hint reported as text is not typed text";
  EXPECT_EQ(kids[1]["hint"], "Search");
  EXPECT_FALSE(kids[1].contains("visible"));
}

TEST(Label, ARefsLabelNamesAnEmptyFieldByItsHint) {
  const Snapshot s = parse_dump(test::dump(group({field("Item name"), field("Qty", "3")})));
  EXPECT_EQ(s.ref(1)->label, "TextInput hint=\"Item name\"");
  EXPECT_EQ(s.ref(2)->label, "TextInput \"3\"");
}

}  // namespace
}  // namespace adbwire::ui
