// base/number.hpp: whole numbers of each type, and everything that is not one.
#include "base/number.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>

namespace adbwire::detail {
namespace {

TEST(Number, ReadsAllOfTheText) {
  EXPECT_EQ(parse_number<int>("42"), 42);
  EXPECT_EQ(parse_number<int>("-7"), -7);
  EXPECT_EQ(parse_number<int>("007"), 7);
  EXPECT_EQ(parse_number<std::uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_number<std::int32_t>("-2147483648"), INT32_MIN);
  EXPECT_EQ(parse_number<double>("2.5"), 2.5);
  EXPECT_EQ(parse_number<double>("1e3"), 1000.0);
}

TEST(Number, AnythingElseIsNone) {
  for (const std::string_view bad : {"", " 1", "1 ", "+1", "1x", "x1", "0x10", "1.5", "--1"})
    EXPECT_FALSE(parse_number<int>(bad)) << "'" << bad << "'";
  EXPECT_FALSE(parse_number<unsigned>("-1"));
  EXPECT_FALSE(parse_number<std::uint64_t>("18446744073709551616"));
  EXPECT_FALSE(parse_number<std::int32_t>("2147483648"));
  EXPECT_FALSE(parse_number<std::uint16_t>("65536"));
  EXPECT_FALSE(parse_number<double>("1.5s"));
  EXPECT_FALSE(parse_number<double>(""));
  EXPECT_FALSE(parse_number<int>(std::string_view("1\0", 2)));
}

}  // namespace
}  // namespace adbwire::detail
