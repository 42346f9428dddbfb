// find (priority and match modes), XPath on the parsed dump, element info and tap points.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "adbwire/error.hpp"
#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::group;
using test::N;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

N with(N n, std::string id, std::string desc = {}) {
  n.id = std::move(id);
  n.desc = std::move(desc);
  return n;
}

// 0 group, 1 "Search" button id=search, 2 text "search" desc "Search box",
// 3 image desc "Search", 4 text "Advanced search"
Snapshot screen() {
  N image;
  image.cls = "android.widget.ImageView";
  return parse_dump(test::dump(group({with(button("Search"), "com.x:id/search"),
                                      with(test::text("search"), "", "Search box"),
                                      with(image, "", "Search"), test::text("Advanced search")})));
}

TEST(Find, ResourceIdBeatsTextBeatsDesc) {
  const Snapshot s = screen();
  EXPECT_THAT(s.find("search"), ElementsAre(1u)) << "short resource-id name, exact";
  EXPECT_THAT(s.find("com.x:id/search"), ElementsAre(1u));
  EXPECT_THAT(s.find("Search"), ElementsAre(1u)) << "exact text of the button";
  EXPECT_THAT(s.find("Search box"), ElementsAre(2u)) << "exact desc";
  EXPECT_THAT(s.find("Advanced"), ElementsAre(4u)) << "partial text";
  EXPECT_THAT(s.find("BOX"), ElementsAre(2u)) << "partial desc, case-insensitive";
  EXPECT_TRUE(s.find("nothing like it").empty());
  EXPECT_TRUE(s.find("").empty());
}

TEST(Find, ByFieldAndMode) {
  const Snapshot s = screen();
  EXPECT_THAT(s.find(FindField::text, "search", MatchMode::exact), ElementsAre(2u));
  EXPECT_THAT(s.find(FindField::text, "search", MatchMode::partial), ElementsAre(1u, 2u, 4u));
  EXPECT_THAT(s.find(FindField::content_desc, "Search", MatchMode::exact), ElementsAre(3u));
  EXPECT_THAT(s.find(FindField::resource_id, "id/sea", MatchMode::partial), ElementsAre(1u));
  EXPECT_TRUE(s.find(FindField::resource_id, "id/sea", MatchMode::exact).empty());
}

TEST(XPath, RunsOnTheRawDump) {
  const Snapshot s = screen();
  EXPECT_THAT(s.xpath("//node[@resource-id='com.x:id/search']"), ElementsAre(1u));
  EXPECT_THAT(s.xpath("//node[contains(@text, 'earch')]"), ElementsAre(1u, 2u, 4u));
  EXPECT_THAT(s.xpath("//node[@content-desc]/@content-desc[. != '']"), ElementsAre(2u, 3u));
  EXPECT_THAT(s.xpath("/hierarchy/node"), ElementsAre(0u));
  EXPECT_TRUE(s.xpath("//node[@text='none']").empty());
}

TEST(XPath, BadQueriesAreInvalidArgument) {
  const Snapshot s = screen();
  std::error_code error;
  EXPECT_TRUE(s.xpath("//node[", error).empty());
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_TRUE(s.xpath("count(//node)", error).empty());
  EXPECT_EQ(error, errc::invalid_argument);
  try {
    s.xpath("//node[@text=");
    FAIL() << "a malformed XPath was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_THAT(e.what(), HasSubstr("//node[@text="));
  }
}

TEST(XPath, AppiumSourcesUseClassNamesAsTags) {
  const Snapshot s = parse_dump(
      R"(<hierarchy><android.widget.FrameLayout class="android.widget.FrameLayout"><android.widget.Button text="Go" clickable="true"/></android.widget.FrameLayout></hierarchy>)");
  EXPECT_THAT(s.xpath("//android.widget.Button[@text='Go']"), ElementsAre(1u));
}

TEST(Info, CentreWhenNothingCoversIt) {
  const Snapshot s = parse_dump(test::dump(button("Go")));
  const ElementInfo info = s.info(0);
  EXPECT_EQ(info.ref, 1u);
  EXPECT_EQ(info.bounds, (Bounds{0, 0, 100, 100}));
  EXPECT_EQ(info.center, (Point{50, 50}));
  EXPECT_EQ(info.tap_point, (Point{50, 50}));
  EXPECT_TRUE(info.tap_point_clear);
}

TEST(Info, TapPointAvoidsAnInteractiveChildOnTheCentre) {
  // A row [0,0][1000,200] whose middle holds a "delete" button [400,50][600,150].
  N row = group({});
  row.clickable = true;
  row.bounds = "[0,0][1000,200]";
  N del = button("Delete");
  del.bounds = "[400,50][600,150]";
  row.kids = {del};
  const Snapshot s = parse_dump(test::dump(row));
  const ElementInfo info = s.info(0);
  EXPECT_EQ(info.center, (Point{500, 100}));
  EXPECT_TRUE(info.tap_point_clear);
  EXPECT_FALSE(Bounds(s.node(1).bounds).contains(info.tap_point));
  EXPECT_TRUE(info.bounds.contains(info.tap_point));
  EXPECT_EQ(info.tap_point, (Point{500, 25})) << "nearest free point to the centre";
  // The child itself is tapped at its own centre.
  EXPECT_EQ(s.info(1).tap_point, (Point{500, 100}));
}

TEST(Info, LaterOverlayCoversEarlierSibling) {
  N under = button("Under");
  under.bounds = "[0,0][100,100]";
  N overlay = button("Overlay");
  overlay.bounds = "[0,0][100,100]";
  const Snapshot s = parse_dump(test::dump(group({under, overlay})));
  EXPECT_FALSE(s.info(1).tap_point_clear);
  EXPECT_EQ(s.info(1).tap_point, (Point{50, 50}));
  EXPECT_TRUE(s.info(2).tap_point_clear) << "the overlay itself is on top";
}

TEST(Info, EmptyBoundsHaveNoClearTapPoint) {
  N b = button("Ghost");
  b.bounds = "[0,0][0,0]";
  EXPECT_FALSE(parse_dump(test::dump(b)).info(0).tap_point_clear);
}

}  // namespace
}  // namespace adbwire::ui
