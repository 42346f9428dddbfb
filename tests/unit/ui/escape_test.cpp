// The text stays YAML whatever the device writes: quoting of lines YAML would misread,
// escapes of the characters it forbids, and parent lines kept under the key length limit.
// Every case is read back with libyaml.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
using ::testing::HasSubstr;

// The node lines of the snapshot, after checking that libyaml reads back the same tree.
std::string yaml(const std::string& xml, SnapshotOptions options = {}) {
  const std::string out = parse_dump(xml, options).to_text();
  std::vector<test::YamlItem> items;
  std::string error;
  EXPECT_TRUE(test::read_yaml_tree(out, items, error)) << error << "\n" << out;
  EXPECT_EQ(items, test::line_tree(out)) << out;
  EXPECT_EQ(test::misshapen_line(out), "") << out;
  return test::node_lines(out);
}

std::string yaml(const N& root) { return yaml(test::dump(root)); }

TEST(Escape, LinesYamlWouldMisreadAreSingleQuoted) {
  N tab = text("Attendees");
  tab.desc = "Tab: Attendees";
  EXPECT_EQ(yaml(group({tab, text("Issue #5"), text("it's 5:30 now"), text("ok:fine#x")})),
            "- Group:\n"
            "  - 'Text \"Attendees\" (Tab: Attendees)'\n"
            "  - 'Text \"Issue #5\"'\n"
            "  - Text \"it's 5:30 now\"\n"
            "  - Text \"ok:fine#x\"\n");
  N quoted_parent = group({text("child")});
  quoted_parent.desc = "Note: it's";
  EXPECT_EQ(yaml(quoted_parent), "- 'Group (Note: it''s)':\n  - Text \"child\"\n");
  EXPECT_EQ(yaml(text("ends with colon:")), "- Text \"ends with colon:\"\n")
      << "the closing quote follows the colon";
}

TEST(Escape, RolesThatReadAsOtherYamlAreQuoted) {
  N yes;
  yes.cls = "com.example.Yes";
  yes.clickable = true;
  N dash;
  dash.cls = "weird.-Dash";
  dash.clickable = true;
  N digit;
  digit.cls = "a.b.1View";
  digit.clickable = true;
  N null_role;
  null_role.cls = "x.null";
  null_role.clickable = true;
  EXPECT_EQ(yaml(group({yes, dash, digit, null_role})),
            "- Group:\n"
            "  - Yes [ref=1] @50,50\n"
            "  - '-Dash [ref=2] @50,50'\n"
            "  - '1View [ref=3] @50,50'\n"
            "  - null [ref=4] @50,50\n");
  // A YAML word is quoted only when it is the whole item.
  N bare_true;
  bare_true.cls = "x.true";
  bare_true.checked = true;
  EXPECT_EQ(yaml(bare_true), "- true [checked]\n");
  N kids_only = group({text("a"), text("b")});
  kids_only.cls = "x.on";
  EXPECT_EQ(yaml(kids_only), "- 'on':\n  - Text \"a\"\n  - Text \"b\"\n");
}

TEST(Escape, CharactersYamlForbidsOrBreaksLinesOnAreEscaped) {
  // DEL, a C1 control, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR, BOM, U+FFFE.
  N t = text("a\x7f b\xc2\x80 c\xc2\x85 d\xe2\x80\xa8 e\xe2\x80\xa9 f\xef\xbb\xbf g\xef\xbf\xbe");
  EXPECT_EQ(yaml(t), "- Text \"a\\u007f b\\u0080 c\\u0085 d\\u2028 e\\u2029 f\\ufeff g\\ufffe\"\n");
  // Bytes that are not UTF-8 become U+FFFD; the role and the id are escaped too.
  N bad = text("x");
  bad.cls = "a.Ro\tle";
  bad.id = "com.example:id/i\nd";
  SnapshotOptions ids;
  ids.show_ids = true;
  const std::string xml = test::dump(bad);
  EXPECT_EQ(yaml(xml, ids), "- Ro\\tle#i\\nd \"x\"\n");
  EXPECT_EQ(
      yaml("<hierarchy><node class=\"a.TextView\" text=\"bad \xff\xfe tail \xc3\"/></hierarchy>"),
      "- Text \"bad \xEF\xBF\xBD\xEF\xBF\xBD tail \xEF\xBF\xBD\"\n");
}

TEST(Escape, AParentLineStaysUnderYamlsKeyLimit) {
  N article = group({button("Like"), button("Share")});
  article.clickable = true;
  article.desc = std::string(3000, 'w');
  const std::string out = yaml(test::dump(article));
  const std::string first = out.substr(0, out.find('\n'));
  EXPECT_LE(first.size(), 1002u);
  EXPECT_THAT(first, HasSubstr("- Group [ref=1] (" + std::string(80, 'w') + "…):"));
  // A leaf keeps all of its text: YAML limits only keys.
  N leaf = text(std::string(3000, 'z'));
  EXPECT_EQ(yaml(leaf), "- Text \"" + std::string(3000, 'z') + "\"\n");
  // Escapes count: 300 control characters are 1800 bytes escaped.
  N controls = group({text("a"), text("b")});
  controls.desc = std::string(300, '\x01');
  EXPECT_THAT(yaml(test::dump(controls)), HasSubstr("- Group (" + [] {
                std::string s;
                for (int i = 0; i < 80; ++i) s += "\\u0001";
                return s;
              }() + "…):\n"));
  // A device could name a class with 2000 quotes or give a 3000-character id: they are cut,
  // the ref and the states stay.
  N huge = group({text("a"), text("b")});
  huge.cls = "x." + std::string(2000, '\'');
  huge.id = "com.example:id/" + std::string(3000, 'i');
  huge.clickable = true;
  huge.checked = true;
  SnapshotOptions ids;
  ids.show_ids = true;
  const std::string cut = yaml(test::dump(huge), ids);
  EXPECT_LE(cut.find('\n'), 1002u);
  EXPECT_EQ(
      cut.substr(0, cut.find('\n') + 1),
      "- '" + std::string(160, '\'') + "…#" + std::string(80, 'i') + "… [ref=1] [checked]':\n");
}

TEST(Escape, CompactCutsStayValid) {
  N t = text("Price: " + std::string(200, '9'));
  SnapshotOptions compact;
  compact.compact = true;
  EXPECT_EQ(yaml(test::dump(t), compact), "- 'Text \"Price: " + std::string(73, '9') + "…\"'\n");
}

}  // namespace
}  // namespace adbwire::ui
