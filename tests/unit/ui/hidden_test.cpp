// Nodes the user cannot see: no ref, no label, and a note on the scrollable that holds them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "adbwire/error.hpp"
#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::group;
using test::N;
using test::text;

constexpr const char* kHidden = R"(visible-to-user="false")";

N hidden(N n, std::string bounds = "[0,0][100,100]") {
  n.extra += (n.extra.empty() ? "" : " ") + std::string(kHidden);
  n.bounds = std::move(bounds);
  return n;
}

N at(N n, std::string bounds) {
  n.bounds = std::move(bounds);
  return n;
}

N list(std::vector<N> rows, std::string bounds = "[0,200][1080,1000]") {
  N n = group(std::move(rows));
  n.cls = "androidx.recyclerview.widget.RecyclerView";
  n.scrollable = true;
  n.bounds = std::move(bounds);
  return n;
}

std::string render(const N& root) {
  return test::node_lines(parse_dump(test::dump(root)).to_text());
}

TEST(Hidden, NodesNotVisibleToTheUserGetNoRefAndShowNothing) {
  N wrapper = hidden(group({text("inside a hidden wrapper"), button("Still visible")}));
  const Snapshot s = parse_dump(
      test::dump(group({button("Shown"), hidden(button("Off screen")), wrapper, button("Last")})));
  EXPECT_EQ(test::node_lines(s.to_text()),
            "- Group:\n"
            "  - Button [ref=1] \"Shown\"\n"
            "  - Group:\n"
            "    - Text \"inside a hidden wrapper\"\n"
            "    - Button [ref=2] \"Still visible\"\n"
            "  - Button [ref=3] \"Last\"\n");
  EXPECT_EQ(s.refs().size(), 3u);
  EXPECT_FALSE(s.node(2).visible);
  EXPECT_EQ(s.node(2).ref, 0u);
  // JSON marks the printed wrapper that is not visible itself.
  const auto json = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(json["nodes"][0]["children"][1]["visible"], false);
  EXPECT_FALSE(json["nodes"][0]["children"][0].contains("visible"));
}

TEST(Hidden, EmptyBoundsAndAppiumsDisplayedFalseAreNotVisible) {
  // A plain dump reports off-screen WebView content as [0,0][0,0].
  N web_link = at(button("Read more"), "[0,0][0,0]");
  N appium = button("Gone");
  appium.extra = R"(displayed="false")";
  const Snapshot s = parse_dump(test::dump(group({web_link, appium, button("Here")})));
  EXPECT_EQ(test::node_lines(s.to_text()), "- Button [ref=1] \"Here\"\n");
  EXPECT_FALSE(s.node(1).visible);
  EXPECT_FALSE(s.node(2).visible);
}

TEST(Hidden, AScrollableSaysWhereItsHiddenContentLies) {
  const N below =
      list({at(text("Row 1"), "[0,200][1080,400]"), at(text("Row 2"), "[0,400][1080,1000]"),
            hidden(text("Row 3"), "[0,1000][1080,1200]")});
  EXPECT_EQ(render(below),
            "- List [ref=1] [more below]:\n  - Text \"Row 1\"\n  - Text \"Row 2\"\n");
  const N above =
      list({hidden(text("Row 0"), "[0,0][1080,200]"), at(text("Row 1"), "[0,200][1080,400]")});
  EXPECT_EQ(render(above), "- List [ref=1] [more above]:\n  - Text \"Row 1\"\n");
  N pager = list(
      {at(text("Page 1"), "[0,200][1080,1000]"), hidden(text("Page 2"), "[1080,200][2160,1000]")});
  pager.cls = "androidx.viewpager.widget.ViewPager";
  EXPECT_EQ(render(pager), "- ViewPager [ref=1] [more right]:\n  - Text \"Page 1\"\n");
}

TEST(Hidden, WithoutBoundsDocumentOrderSaysAboveOrBelow) {
  // A WebView's article scrolled halfway: what comes before the visible part is above.
  N web = list({at(text("Title"), "[0,0][0,0]"), at(text("Paragraph 7"), "[0,300][1080,600]"),
                at(text("Comments"), "[0,0][0,0]")});
  web.cls = "android.webkit.WebView";
  const Snapshot s = parse_dump(test::dump(web));
  EXPECT_EQ(test::node_lines(s.to_text()),
            "- WebView [ref=1] [more above, more below]:\n  - Text \"Paragraph 7\"\n");
  EXPECT_EQ(nlohmann::json::parse(s.to_json())["nodes"][0]["states"],
            nlohmann::json::array({"more above", "more below"}));
}

TEST(Hidden, OnlyContentCountsAndTheNearestVisibleScrollableSaysIt) {
  // An empty hidden spacer says nothing.
  EXPECT_EQ(render(list(
                {at(text("Row"), "[0,200][1080,400]"), hidden(group({}), "[0,1000][1080,1200]")})),
            "- List [ref=1]:\n  - Text \"Row\"\n");
  // A hidden inner scrollable is skipped: the visible outer one holds its content.
  N inner = hidden(list({hidden(text("Deep"), "[0,1200][1080,1300]")}), "[0,1000][1080,1400]");
  EXPECT_EQ(render(list({at(text("Row"), "[0,200][1080,400]"), inner})),
            "- List [ref=1] [more below]:\n  - Text \"Row\"\n");
  // Hidden content outside any scrollable gets no note.
  EXPECT_EQ(render(group({text("a"), hidden(text("b"))})), "- Text \"a\"\n");
}

TEST(Hidden, ARefThatIsNoLongerVisibleIsStale) {
  const Snapshot before = parse_dump(test::dump(group({button("Send"), button("Cancel")})));
  const Snapshot after = parse_dump(test::dump(group({hidden(button("Send")), button("Cancel")})));
  std::error_code error;
  EXPECT_EQ(resolve(*before.ref(1), after, error), kNoNode);
  EXPECT_EQ(error, errc::stale_ref);
  EXPECT_EQ(after.node(resolve(*before.ref(2), after)).text, "Cancel");
}

}  // namespace
}  // namespace adbwire::ui
