// base/port.hpp: what is a port and what is not, at the edges of the range and of the syntax.
#include "base/port.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace adbwire::detail {
namespace {

TEST(Port, DecimalPortsOneTo65535) {
  EXPECT_EQ(parse_port("1"), 1);
  EXPECT_EQ(parse_port("5037"), 5037);
  EXPECT_EQ(parse_port("5555"), 5555);
  EXPECT_EQ(parse_port("65535"), 65535);
  EXPECT_EQ(parse_port("05555"), 5555);
}

TEST(Port, AnythingElseIsNotAPort) {
  for (const std::string_view bad :
       {"", "0", "00", "65536", "99999", "4294967296", "18446744073709551617", "-1", "+80", " 80",
        "80 ", "8 0", "0x50", "80a", "a80", "80:", ":80", "5555\n", "١٢٣"}) {
    EXPECT_FALSE(parse_port(bad)) << "'" << bad << "'";
  }
  EXPECT_FALSE(parse_port(std::string_view("80\0", 3)));
}

TEST(Port, ListenPortsTakeZeroForAnyFreePort) {
  EXPECT_EQ(parse_listen_port("0"), 0);
  EXPECT_EQ(parse_listen_port("000"), 0);
  EXPECT_EQ(parse_listen_port("8080"), 8080);
  EXPECT_EQ(parse_listen_port("65535"), 65535);
  for (const std::string_view bad : {"", "65536", "-0", "+0", " 0", "0x0", "tcp:0"})
    EXPECT_FALSE(parse_listen_port(bad)) << "'" << bad << "'";
}

}  // namespace
}  // namespace adbwire::detail
