// The quoting of tool output in error messages (sh quoting is base/shell_quote, tested there).
#include "services/device_command.hpp"

#include <gtest/gtest.h>

namespace adbwire::detail {
namespace {

TEST(QuoteOutput, KeepsTheTrimmedEndOfTheOutput) {
  EXPECT_EQ(quote_output("  Error: bad\r\n"), "\"Error: bad\"");
  EXPECT_EQ(quote_output("\n \r\n"), "no output");
  const std::string long_output = std::string(400, 'a') + "the end\n";
  const std::string quoted = quote_output(long_output);
  EXPECT_EQ(quoted.size(), 2U + 300U - 1U);  // the last 300 bytes less the line end, quoted
  EXPECT_TRUE(quoted.ends_with("the end\"")) << quoted;
  // The device's words cannot act on a terminal.
  EXPECT_EQ(quote_output("Error: \x1b]0;title\x07"), "\"Error: \\x1b]0;title\\x07\"");
}

TEST(Trim, DropsSpacesAndLineEndsAroundOnly) {
  EXPECT_EQ(trim(" \r\n a b \r\n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\n"), "");
}

}  // namespace
}  // namespace adbwire::detail
