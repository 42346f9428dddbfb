// Prune rules, the text format (states, escaping, Unicode), options and the JSON form.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::group;
using test::N;
using test::text;
using ::testing::HasSubstr;

// The node lines only; the comment lines have their own tests (window_test.cpp).
std::string render(const N& root, SnapshotOptions options = {}) {
  return test::node_lines(parse_dump(test::dump(root), options).to_text());
}

TEST(Prune, RefsGoToClickableEditableAndScrollableInDocumentOrder) {
  N list = group({button("A"), text("plain"), button("B")});
  list.cls = "android.widget.ScrollView";
  list.scrollable = true;
  N field;
  field.cls = "android.widget.EditText";
  const Snapshot s = parse_dump(test::dump({list, field}));
  EXPECT_EQ(test::node_lines(s.to_text()),
            "- ScrollView [ref=1]:\n"
            "  - Button [ref=2] \"A\"\n"
            "  - Text \"plain\"\n"
            "  - Button [ref=3] \"B\"\n"
            "- TextInput [ref=4] \"\"\n");
  ASSERT_EQ(s.refs().size(), 4u);
  for (std::uint32_t n = 1; n <= 4; ++n) {
    ASSERT_NE(s.ref(n), nullptr);
    EXPECT_EQ(s.ref(n)->ref, n);
    EXPECT_EQ(s.node(s.ref(n)->node).ref, n);
  }
  EXPECT_EQ(s.ref(0), nullptr);
  EXPECT_EQ(s.ref(5), nullptr);
}

TEST(Prune, CollapsesSingleChildWrappersWithoutTextOrRef) {
  EXPECT_EQ(render(group({group({group({text("deep")})})})), "- Text \"deep\"\n");
}

TEST(Prune, KeepsWrappersThatCarryARefTextOrDesc) {
  N clickable = group({text("label")});
  clickable.clickable = true;
  EXPECT_EQ(render(clickable), "- Group [ref=1]:\n  - Text \"label\"\n");
  N described = group({text("label")});
  described.desc = "card";
  EXPECT_EQ(render(described), "- Group (card):\n  - Text \"label\"\n");
}

TEST(Prune, KeepsGroupsWithSeveralChildren) {
  EXPECT_EQ(render(group({text("a"), text("b")})), "- Group:\n  - Text \"a\"\n  - Text \"b\"\n");
}

TEST(Prune, DropsLeavesWithNothingToShow) {
  N image;
  image.cls = "android.widget.ImageView";
  EXPECT_EQ(render(group({image, text("kept"), group({image, image})})), "- Text \"kept\"\n");
}

TEST(Prune, KeepsLeavesThatOnlyHaveAState) {
  N box;
  box.cls = "android.widget.CheckBox";
  box.checked = true;
  EXPECT_EQ(render(group({box, text("x")})), "- Group:\n  - CheckBox [checked]\n  - Text \"x\"\n");
}

TEST(Prune, DropsRepeatedSiblingsOfSameClassAndText) {
  EXPECT_EQ(render(group({text("•"), text("item"), text("•"), text("item"), text("other")})),
            "- Group:\n  - Text \"•\"\n  - Text \"item\"\n  - Text \"other\"\n");
}

TEST(Prune, RepeatsWithDifferentContentAreNotDuplicates) {
  // Same class, same (empty) text, different children: both rows stay.
  const N row1 = group({text("Alice"), text("hi")});
  const N row2 = group({text("Bob"), text("hi")});
  EXPECT_EQ(render(group({row1, row2})),
            "- Group:\n  - Group:\n    - Text \"Alice\"\n    - Text \"hi\"\n"
            "  - Group:\n    - Text \"Bob\"\n    - Text \"hi\"\n");
  // Same text, different desc or state: not repeats either.
  N a = text("x");
  N b = text("x");
  b.desc = "d";
  N c = text("x");
  c.selected = true;
  EXPECT_EQ(render(group({a, b, c})),
            "- Group:\n  - Text \"x\"\n  - Text \"x\" (d)\n  - Text \"x\" [selected]\n");
}

TEST(Prune, NeverDropsARepeatedSiblingThatCarriesARef) {
  EXPECT_EQ(
      render(group({button("Add"), button("Add"), group({button("Add")}), group({button("Add")})})),
      "- Group:\n  - Button [ref=1] \"Add\"\n  - Button [ref=2] \"Add\"\n"
      "  - Button [ref=3] \"Add\"\n  - Button [ref=4] \"Add\"\n");
}

TEST(Prune, ShowsStatesInFormatOrder) {
  N b = button("Go");
  b.checked = true;
  b.selected = true;
  b.focused = true;
  b.enabled = false;
  b.password = true;
  EXPECT_EQ(render(b),
            "- Button [ref=1] \"Go\" [password, checked, selected, focused, disabled]\n");
  N f = button("Go");
  f.focused = true;
  EXPECT_EQ(render(f), "- Button [ref=1] \"Go\" [focused]\n");
}

TEST(Prune, RepeatsDifferingOnlyInAShownStateAreNotDuplicates) {
  N pw = text("x");
  pw.password = true;
  EXPECT_EQ(render(group({text("x"), pw, text("x")})),
            "- Group:\n  - Text \"x\"\n  - Text \"x\" [password]\n");
}

TEST(Format, EscapesQuotesBackslashesAndLineBreaks) {
  N t = text("say \"hi\"\\now\nline2\r\tend\x01");
  t.desc = "a\nb (c)";
  EXPECT_EQ(render(t), "- Text \"say \\\"hi\\\"\\\\now\\nline2\\r\\tend\\u0001\" (a\\nb (c))\n");
}

TEST(Format, KeepsNonAsciiAndEmojiIntact) {
  N t = text("微信 العربية Olá 😀👍🏽");
  t.desc = "한국어 ✓";
  EXPECT_EQ(render(t), "- Text \"微信 العربية Olá 😀👍🏽\" (한국어 ✓)\n");
}

TEST(Options, InteractiveOnlyHidesTextOutsideInteractiveElements) {
  N row = group({text("Label inside")});
  row.clickable = true;
  const N screen = group({text("Heading"), row, text("Footer")});
  SnapshotOptions options;
  options.interactive_only = true;
  EXPECT_EQ(render(screen, options), "- Group [ref=1]:\n  - Text \"Label inside\"\n");
  EXPECT_EQ(render(screen),
            "- Group:\n  - Text \"Heading\"\n  - Group [ref=1]:\n    - Text \"Label inside\"\n"
            "  - Text \"Footer\"\n");
}

TEST(Options, MaxDepthCutsSubtreesAndNamesHiddenRefs) {
  const N screen = group({text("top"), group({button("A"), group({button("B"), text("t")})}),
                          group({text("no refs"), text("here")})});
  SnapshotOptions options;
  options.max_depth = 2;
  const Snapshot s = parse_dump(test::dump(screen), options);
  EXPECT_EQ(test::node_lines(s.to_text()),
            "- Group:\n"
            "  - Text \"top\"\n"
            "  - Group:\n"
            "    - … [refs 1-2 hidden]\n"
            "  - Group:\n"
            "    - …\n");
  EXPECT_EQ(s.refs().size(), 2u) << "refs keep their numbers whatever is printed";
  options.max_depth = 3;
  EXPECT_THAT(render(screen, options), HasSubstr("      - … [ref 2 hidden]\n"));
}

TEST(Options, CompactSkipsUnlabeledGroupsAndCutsLongText) {
  const std::string long_text(100, 'x');
  const N screen = group({text(long_text), group({button("A"), text("b")})});
  SnapshotOptions options;
  options.compact = true;
  EXPECT_EQ(render(screen, options), "- Text \"" + std::string(kCompactTextLength, 'x') +
                                         "…\"\n- Button [ref=1] \"A\"\n- Text \"b\"\n");
  std::string cjk;
  for (int i = 0; i < 50; ++i) cjk += "中文";
  EXPECT_EQ(render(text(cjk), options),
            "- Text \"" + cjk.substr(0, 3 * kCompactTextLength) + "…\"\n");
}

TEST(Json, SameTreeAsTheText) {
  N b = button("Go \"now\"");
  b.checked = true;
  b.id = "com.x:id/go";
  const N screen = group({text("t"), b});
  const Snapshot s = parse_dump(test::dump(screen));
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(json["rotation"], 0);
  ASSERT_EQ(json["nodes"].size(), 1u);
  const auto& root = json["nodes"][0];
  EXPECT_EQ(root["role"], "Group");
  EXPECT_FALSE(root.contains("ref"));
  ASSERT_EQ(root["children"].size(), 2u);
  EXPECT_EQ(root["children"][0]["text"], "t");
  const auto& go = root["children"][1];
  EXPECT_EQ(go["ref"], 1);
  EXPECT_EQ(go["text"], "Go \"now\"");
  EXPECT_EQ(go["states"], nlohmann::json::array({"checked"}));
  EXPECT_EQ(go["resource_id"], "com.x:id/go");
  EXPECT_EQ(go["class"], "android.widget.Button");
  EXPECT_EQ(go["bounds"], nlohmann::json::array({0, 0, 100, 100}));
}

TEST(Json, CutSubtreesAndInvalidUtf8StayValidJson) {
  const std::string xml =
      "<hierarchy><node class=\"a.TextView\" text=\"bad \xff\xfe bytes \xc3\"/>"
      "<node class=\"a.LinearLayout\"><node class=\"a.Button\" clickable=\"true\"/>"
      "<node class=\"a.Button\" clickable=\"true\"/></node></hierarchy>";
  SnapshotOptions options;
  options.max_depth = 1;
  const Snapshot s = parse_dump(xml, options);
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(json["nodes"][0]["text"], "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes \xEF\xBF\xBD");
  EXPECT_EQ(json["nodes"][1]["children"][0]["truncated"], true);
  EXPECT_EQ(json["nodes"][1]["children"][0]["hidden_refs"], nlohmann::json::array({1, 2}));
}

}  // namespace
}  // namespace adbwire::ui
