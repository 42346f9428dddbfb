// Parsing: attributes, tree links, device chatter around the XML, errors, size and depth.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "adbwire/error.hpp"
#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::N;
using ::testing::HasSubstr;

std::string parse_failure(std::string xml) {
  std::error_code error;
  std::string detail;
  const Snapshot s = parse_dump(std::move(xml), {}, error, &detail);
  EXPECT_EQ(error, errc::parse_error);
  EXPECT_TRUE(s.nodes().empty());
  EXPECT_TRUE(s.refs().empty());
  return detail;
}

TEST(DumpParser, ReadsEveryAttributeUiautomatorWrites) {
  const std::string xml =
      R"(<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="1">)"
      R"(<node index="3" text="Hi &amp; bye" resource-id="com.x:id/go" class="android.widget.Button" )"
      R"(package="com.x" content-desc="Go!" checkable="true" checked="true" clickable="true" )"
      R"(enabled="false" focusable="true" focused="true" scrollable="true" long-clickable="true" )"
      R"(password="true" selected="true" bounds="[-5,10][300,2400]" drawing-order="7" hint="Type" )"
      R"(display-id="2" NAF="true" visible-to-user="false" /></hierarchy>)";
  const Snapshot s = parse_dump(xml);
  ASSERT_EQ(s.nodes().size(), 1u);
  const Node& n = s.node(0);
  EXPECT_EQ(s.rotation(), 1);
  EXPECT_EQ(n.index, 3);
  EXPECT_EQ(n.text, "Hi & bye");
  EXPECT_EQ(n.resource_id, "com.x:id/go");
  EXPECT_EQ(n.class_name, "android.widget.Button");
  EXPECT_EQ(n.package, "com.x");
  EXPECT_EQ(n.content_desc, "Go!");
  EXPECT_EQ(n.hint, "Type");
  EXPECT_TRUE(n.checkable && n.checked && n.clickable && n.focusable && n.focused && n.scrollable &&
              n.long_clickable && n.password && n.selected);
  EXPECT_FALSE(n.enabled);
  EXPECT_TRUE(n.has_bounds);
  EXPECT_EQ(n.bounds, (Bounds{-5, 10, 300, 2400}));
  EXPECT_EQ(n.drawing_order, 7);
  EXPECT_EQ(n.display_id, 2);
  EXPECT_FALSE(n.visible) << "visible-to-user=\"false\"";
  const auto extras = s.extra_attributes(0);
  ASSERT_EQ(extras.size(), 2u);
  EXPECT_EQ(extras[0].name, "NAF");
  EXPECT_EQ(extras[0].value, "true");
  EXPECT_EQ(extras[1].name, "visible-to-user");
  EXPECT_EQ(extras[1].value, "false");
}

TEST(DumpParser, AbsentAttributesHaveDocumentedDefaults) {
  const Snapshot s = parse_dump(R"(<hierarchy><node class="android.view.View"/></hierarchy>)");
  const Node& n = s.node(0);
  EXPECT_TRUE(n.enabled);
  EXPECT_FALSE(n.has_bounds);
  EXPECT_EQ(n.drawing_order, -1);
  EXPECT_EQ(n.display_id, -1);
  EXPECT_EQ(s.rotation(), 0);
}

TEST(DumpParser, UnreadableBoundsAreMarkedNotGuessed) {
  for (const char* bounds : {"[1,2][3]", "1,2,3,4", "[a,b][c,d]", "[1,2][3,4]x", ""}) {
    N n;
    n.bounds = bounds;
    const Snapshot s = parse_dump(test::dump(n));
    EXPECT_FALSE(s.node(0).has_bounds) << bounds;
  }
}

TEST(DumpParser, LinksTheTreeInDocumentOrder) {
  // a(b(c), d), e
  N a = test::group({test::group({test::text("c")}), test::text("d")});
  const Snapshot s = parse_dump(test::dump({a, test::text("e")}));
  ASSERT_EQ(s.nodes().size(), 5u);
  const auto& n = s.nodes();
  EXPECT_EQ(n[0].parent, kNoNode);
  EXPECT_EQ(n[0].first_child, 1u);
  EXPECT_EQ(n[0].next_sibling, 4u);
  EXPECT_EQ(n[0].subtree_end, 4u);
  EXPECT_EQ(n[1].parent, 0u);
  EXPECT_EQ(n[1].first_child, 2u);
  EXPECT_EQ(n[1].next_sibling, 3u);
  EXPECT_EQ(n[2].depth, 2u);
  EXPECT_EQ(n[2].text, "c");
  EXPECT_EQ(n[2].subtree_end, 3u);
  EXPECT_EQ(n[3].parent, 0u);
  EXPECT_EQ(n[3].next_sibling, kNoNode);
  EXPECT_EQ(n[4].depth, 0u);
  EXPECT_EQ(n[4].subtree_end, 5u);
}

TEST(DumpParser, KeepsNewlinesTabsAndNonAsciiText) {
  N n = test::text("line 1\nline 2\t\"quoted\" 中文 العربية 😀");
  const Snapshot s = parse_dump(test::dump(n));
  EXPECT_EQ(s.node(0).text, "line 1\nline 2\t\"quoted\" 中文 العربية 😀");
  // A raw newline in an attribute is kept too (no XML attribute-value normalisation).
  const Snapshot raw =
      parse_dump("<hierarchy><node text=\"a\nb\" class=\"x.TextView\"/></hierarchy>");
  EXPECT_EQ(raw.node(0).text, "a\nb");
}

TEST(DumpParser, IgnoresTheDevTtyTrailerAndLeadingChatter) {
  const std::string body = test::dump(test::button("OK"));
  const Snapshot s = parse_dump("WARNING: linker: something\n" + body +
                                "UI hierchary dumped to: /dev/tty\n<junk & more");
  ASSERT_EQ(s.nodes().size(), 1u);
  EXPECT_EQ(s.to_text(), "# app: com.example\n- Button [ref=1] \"OK\"\n");
}

TEST(DumpParser, ParsesAppiumPageSources) {
  const std::string xml =
      R"(<?xml version="1.0" encoding="UTF-8"?><hierarchy index="0" class="hierarchy" rotation="0" width="1920" height="971">)"
      R"(<android.widget.FrameLayout index="0" package="p" class="android.widget.FrameLayout" text="" bounds="[0,0][10,10]" displayed="true">)"
      R"(<android.widget.Button index="0" package="p" text="Go" clickable="true" bounds="[0,0][5,5]" a11y-important="true"/>)"
      R"(</android.widget.FrameLayout></hierarchy>)";
  const Snapshot s = parse_dump(xml);
  ASSERT_EQ(s.nodes().size(), 2u);
  EXPECT_EQ(s.node(1).class_name, "android.widget.Button") << "class taken from the element name";
  EXPECT_EQ(s.node(1).ref, 1u);
  EXPECT_EQ(s.to_text(), "# app: p\n- Button [ref=1] \"Go\"\n");
  EXPECT_EQ(s.extra_attributes(0)[0].name, "displayed");
}

TEST(DumpParser, EmptyInputIsAClearError) {
  EXPECT_THAT(parse_failure(""), HasSubstr("empty dump"));
  EXPECT_THAT(parse_failure(" \r\n\t"), HasSubstr("empty dump"));
}

TEST(DumpParser, DeviceErrorTextIsQuoted) {
  const std::string detail = parse_failure("ERROR: could not get idle state.\n");
  EXPECT_THAT(detail, HasSubstr("\"ERROR: could not get idle state.\""));
  EXPECT_THAT(parse_failure("null root node returned by UiTestAutomationBridge."),
              HasSubstr("\"null root node returned by UiTestAutomationBridge.\""));
  try {
    parse_dump("ERROR: could not get idle state.");
    FAIL() << "parse_dump accepted device error text";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::parse_error);
    EXPECT_THAT(e.what(), HasSubstr("ERROR: could not get idle state."));
  }
}

TEST(DumpParser, MalformedXmlGivesLineAndColumn) {
  // The mismatched close tag starts at line 3, column 3 (byte 40).
  const std::string xml = "<hierarchy>\n<node class=\"a\">\n  </nod>\n</hierarchy>";
  const std::string detail = parse_failure(xml);
  EXPECT_THAT(detail, HasSubstr("line 3, column"));
  EXPECT_THAT(detail, HasSubstr("mismatch"));
  // Entities decoded in place before the error (here into newlines) must not shift the
  // count: the same bad third line gives the same position with or without them.
  const std::string plain =
      "<hierarchy>\n<node text=\"abc\" class=\"a\">\n<node class=\"b\" bad>\n</hierarchy>";
  const std::string decoded =
      "<hierarchy>\n<node text=\"a&#10;b&#10;c&#13;&#10;\" class=\"a\">\n<node class=\"b\" "
      "bad>\n</hierarchy>";
  EXPECT_THAT(parse_failure(plain), HasSubstr("line 3, column 21 (byte 60)"));
  EXPECT_THAT(parse_failure(decoded), HasSubstr("line 3, column 21 (byte 80)"));
}

TEST(DumpParser, TruncatedDumpIsAParseError) {
  const std::string full = test::dump(test::group({test::button("A"), test::button("B")}));
  EXPECT_THAT(parse_failure(full.substr(0, full.size() - 20)),
              HasSubstr("malformed uiautomator XML"));
}

TEST(DumpParser, OtherRootElementIsRejected) {
  EXPECT_THAT(parse_failure("<html><body/></html>"), HasSubstr("root element is <html>"));
}

TEST(DumpParser, EmptyHierarchyHasNoNodesAndSaysSo) {
  const Snapshot s = parse_dump(R"(<?xml version="1.0"?><hierarchy rotation="3"/>)");
  EXPECT_TRUE(s.nodes().empty());
  EXPECT_EQ(s.rotation(), 3);
  const std::string note =
      "no element to act on (a game or a custom-drawn screen): use a screenshot and tap by "
      "coordinates";
  EXPECT_EQ(s.to_text(), "# " + note + "\n");
  EXPECT_EQ(s.to_json(), R"({"app":{},"rotation":3,"note":")" + note + R"(","nodes":[]})");
  EXPECT_EQ(Snapshot().to_text(), "") << "a default (or failed) Snapshot prints nothing";
}

TEST(DumpParser, TenThousandDeepTreeDoesNotOverflowTheStack) {
  constexpr int kDepth = 10000;
  std::string xml = "<hierarchy>";
  for (int i = 0; i < kDepth; ++i) {
    xml += i % 1000 == 999 ? R"(<node class="android.widget.Button" clickable="true" text="b)" +
                                 std::to_string(i) + R"(" bounds="[0,0][10,10]">)"
                           : R"(<node class="android.widget.FrameLayout" bounds="[0,0][10,10]">)";
  }
  for (int i = 0; i < kDepth; ++i) xml += "</node>";
  xml += "</hierarchy>";
  const Snapshot s = parse_dump(xml);
  ASSERT_EQ(s.nodes().size(), static_cast<std::size_t>(kDepth));
  EXPECT_EQ(s.node(kDepth - 1).depth, static_cast<std::uint32_t>(kDepth - 1));
  EXPECT_EQ(s.node(0).subtree_end, static_cast<NodeIndex>(kDepth));
  ASSERT_EQ(s.refs().size(), 10u);
  // The empty wrappers collapse; the ten buttons nest one level each.
  const std::string text = s.to_text();
  EXPECT_THAT(text, HasSubstr("- Button [ref=1] \"b999\":\n  - Button [ref=2] \"b1999\":\n"));
  EXPECT_THAT(text, HasSubstr("                  - Button [ref=10] \"b9999\"\n"));
  EXPECT_EQ(s.xpath("//node[@clickable='true']").size(), 10u);
  EXPECT_FALSE(s.to_json().empty());
}

TEST(DumpParser, TwentyMegabyteDumpParses) {
  std::string xml =
      "<hierarchy><node class=\"androidx.recyclerview.widget.RecyclerView\" scrollable=\"true\" "
      "bounds=\"[0,0][1080,2400]\">";
  std::size_t rows = 0;
  while (xml.size() < 20u * 1024 * 1024) {
    const std::string id = std::to_string(rows++);
    xml +=
        R"(<node index="0" text="" resource-id="com.x:id/row" class="android.widget.LinearLayout" package="com.x" content-desc="" )"
        R"(checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" )"
        R"(long-clickable="false" password="false" selected="false" bounds="[0,0][1080,200]">)"
        R"(<node index="0" text="Row )" +
        id +
        R"(" resource-id="com.x:id/title" class="android.widget.TextView" package="com.x" )"
        R"(content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" )"
        R"(focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,100]" /></node>)";
  }
  xml += "</node></hierarchy>";
  const Snapshot s = parse_dump(std::move(xml));
  EXPECT_EQ(s.nodes().size(), 1 + 2 * rows);
  EXPECT_EQ(s.refs().size(), 1 + rows);
  EXPECT_EQ(s.node(s.refs().back().node).resource_id, "com.x:id/row");
  const std::string text = s.to_text();
  EXPECT_THAT(text, HasSubstr("    - Text \"Row " + std::to_string(rows - 1) + "\"\n"));
}

TEST(DumpParser, SnapshotStaysValidAfterMove) {
  Snapshot a = parse_dump(test::dump(test::text("short")));  // small enough for SSO
  Snapshot b = std::move(a);
  EXPECT_EQ(b.node(0).text, "short");
  Snapshot c;
  c = std::move(b);
  EXPECT_EQ(c.node(0).text, "short");
  EXPECT_EQ(test::node_lines(c.to_text()), "- Text \"short\"\n");
}

}  // namespace
}  // namespace adbwire::ui
