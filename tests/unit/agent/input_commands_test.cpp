// The command lines Page builds for typing and keys, checked byte for byte.
#include "agent/input_commands.hpp"

#include <gtest/gtest.h>

namespace adbwire::agent {
namespace {

TEST(AsciiTypeCommand, SendsWordsAndSpaceKeysAsOneCommandLine) {
  std::size_t bad = 0;
  EXPECT_EQ(ascii_type_command("hello world", bad),
            "input text 'hello' && input keyevent 62 && input text 'world'");
  EXPECT_EQ(ascii_type_command(" a  b\n", bad),
            "input keyevent 62 && input text 'a' && input keyevent 62 && input keyevent 62 && "
            "input text 'b' && "
            "input keyevent 66");
  EXPECT_EQ(ascii_type_command("x\ty", bad),
            "input text 'x' && input keyevent 61 && input text 'y'");
  EXPECT_EQ(ascii_type_command("", bad), "");
}

TEST(AsciiTypeCommand, SplitsPercentSSoItStaysLiteral) {
  std::size_t bad = 0;
  EXPECT_EQ(ascii_type_command("100%s", bad), "input text '100%' && input text 's'");
  EXPECT_EQ(ascii_type_command("%s%s", bad), "input text '%' && input text 's%' && input text 's'");
  EXPECT_EQ(ascii_type_command("50% off", bad),
            "input text '50%' && input keyevent 62 && input text 'off'");
}

TEST(AsciiTypeCommand, RefusesOtherControlCharactersWithTheirPosition) {
  std::size_t bad = 0;
  EXPECT_FALSE(ascii_type_command("ab\x07", bad));
  EXPECT_EQ(bad, 2U);
  EXPECT_FALSE(ascii_type_command("a\x7f", bad));
  EXPECT_EQ(bad, 1U);
}

TEST(NeedsUnicodePath, OnlyForBytesAbove127) {
  EXPECT_FALSE(needs_unicode_path("plain ASCII ~"));
  EXPECT_TRUE(needs_unicode_path("caf\xc3\xa9"));
}

TEST(KeyCode, NamesNumbersAndKeycodeConstants) {
  EXPECT_EQ(key_code("back"), "4");
  EXPECT_EQ(key_code("HOME"), "3");
  EXPECT_EQ(key_code("recent"), "187");
  EXPECT_EQ(key_code("66"), "66");
  EXPECT_EQ(key_code("KEYCODE_MEDIA_PLAY"), "KEYCODE_MEDIA_PLAY");
  EXPECT_FALSE(key_code("KEYCODE_x; reboot"));
  EXPECT_FALSE(key_code("-1"));
  EXPECT_FALSE(key_code("warp"));
  EXPECT_FALSE(key_code(""));
}

TEST(Base64, MatchesRfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64("caf\xc3\xa9"), "Y2Fmw6k=");
}

TEST(CodePoints, CountsUtf8Characters) {
  EXPECT_EQ(code_points(""), 0U);
  EXPECT_EQ(code_points("abc"), 3U);
  EXPECT_EQ(code_points("caf\xc3\xa9"), 4U);
}

}  // namespace
}  // namespace adbwire::agent
