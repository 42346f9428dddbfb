// ui/bounds.hpp: uiautomator's "[l,t][r,b]" read exactly, and everything around it refused,
// including what sscanf("[%d,%d][%d,%d]") let through before (spaces, '+', a missing ']', text
// after the rectangle).
#include "ui/bounds.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace adbwire::ui {
namespace {

TEST(Bounds, ReadsTheFourCorners) {
  EXPECT_EQ(parse_bounds("[0,0][1080,2400]"), (Bounds{0, 0, 1080, 2400}));
  EXPECT_EQ(parse_bounds("[42,496][354,622]"), (Bounds{42, 496, 354, 622}));
  // Off-screen and inverted rectangles are written as they are; empty() tells them.
  EXPECT_EQ(parse_bounds("[-5,-10][20,0]"), (Bounds{-5, -10, 20, 0}));
  const auto inverted = parse_bounds("[100,100][50,50]");
  ASSERT_TRUE(inverted);
  EXPECT_TRUE(inverted->empty());
  EXPECT_EQ(parse_bounds("[2147483647,-2147483648][0,0]"), (Bounds{2147483647, -2147483648, 0, 0}));
}

TEST(Bounds, RefusesAnythingElse) {
  for (const std::string_view bad :
       {"", "garbage", "[1,2][3,4", "[1,2][3,4]x", " [1,2][3,4]", "[1,2][3,4] ", "[ 1,2][3,4]",
        "[1, 2][3,4]", "[+1,2][3,4]", "[1,2] [3,4]", "[1,2][3]", "[1,2,3,4]", "(1,2)(3,4)",
        "[1.5,2][3,4]", "[0x1,2][3,4]", "[1,2][3,4][5,6]", "[2147483648,0][0,0]", "[,][,]",
        "[1,2][3,-]"}) {
    EXPECT_FALSE(parse_bounds(bad)) << "'" << bad << "'";
  }
  EXPECT_FALSE(parse_bounds(std::string_view("[1,2][3,4]\0", 11)));
}

}  // namespace
}  // namespace adbwire::ui
