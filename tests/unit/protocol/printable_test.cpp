// protocol::printable: what a device or server says is shown without acting on a terminal.
#include "adbwire/protocol/printable.hpp"

#include <gtest/gtest.h>

#include <string>

namespace adbwire::protocol {
namespace {

TEST(Printable, PlainTextAndUtf8PassUnchanged) {
  EXPECT_EQ(printable("photo 1.jpg"), "photo 1.jpg");
  EXPECT_EQ(printable("微信 – Ünïcode ✓ 🙂"), "微信 – Ünïcode ✓ 🙂");
  EXPECT_EQ(printable("a\\b"), "a\\b");
  EXPECT_TRUE(is_printable("微信 photo.jpg"));
}

TEST(Printable, TerminalSequencesAreWrittenOut) {
  // Set the window title, clear the screen, ring the bell: the escape that starts each is shown.
  EXPECT_EQ(printable("\x1b]0;pwned\x07\x1b[2Jx"), "\\x1b]0;pwned\\x07\\x1b[2Jx");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("nul\0byte", 8)), "nul\\x00byte");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
  EXPECT_FALSE(is_printable("\x1b[2J"));
}

TEST(Printable, C1ControlsAndBidiOverridesAreWrittenOut) {
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u{009b}2J");  // CSI as one C1 code point
  EXPECT_EQ(printable("evil\xe2\x80\xaegpj.exe"), "evil\\u{202e}gpj.exe");
  EXPECT_EQ(printable("\xe2\x81\xa6x"), "\\u{2066}x");
  EXPECT_FALSE(is_printable("\xc2\x85"));
}

TEST(Printable, BytesThatAreNotUtf8AreWrittenOut) {
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xe4\xb8"), "\\xe4\\xb8");           // cut short
  EXPECT_FALSE(is_printable("\xff"));
}

TEST(Printable, EscapingTwiceEqualsOnce) {
  const std::string once = printable("\x1b[31mred\xff\xe2\x80\xae");
  EXPECT_EQ(printable(once), once);
  EXPECT_TRUE(is_printable(once));
}

TEST(Printable, MaxBytesCutsAndMarksTheCut) {
  EXPECT_EQ(printable("abcdef", 3), "abc…");
  EXPECT_EQ(printable("abc", 3), "abc");
  EXPECT_EQ(printable("ab微", 4), "ab…");  // a code point cut in half is dropped, not escaped
  EXPECT_EQ(printable(std::string(1000, '\x1b'), 2), "\\x1b\\x1b…");
}

}  // namespace
}  // namespace adbwire::protocol
