// The one key code table, checked against android.view.KeyEvent's constants.
#include "base/keycodes.hpp"

#include <gtest/gtest.h>

namespace adbwire::keycodes {
namespace {

TEST(Keycodes, KeycodeNamesMapToKeyEventsValues) {
  EXPECT_EQ(code_of_keycode_name("KEYCODE_HOME"), 3);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_BACK"), 4);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_ENTER"), 66);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_DEL"), 67);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_MOVE_END"), 123);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_APP_SWITCH"), 187);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_WAKEUP"), 224);
  EXPECT_EQ(code_of_keycode_name("KEYCODE_PASTE"), 279);
  EXPECT_FALSE(code_of_keycode_name("keycode_home"));        // `input keyevent` takes upper case
  EXPECT_FALSE(code_of_keycode_name("KEYCODE_MEDIA_PLAY"));  // not in the table
  EXPECT_FALSE(code_of_keycode_name(""));
}

TEST(Keycodes, ShortNamesInAnyCase) {
  EXPECT_EQ(code_of_short_name("back"), kBack);
  EXPECT_EQ(code_of_short_name("HOME"), kHome);
  EXPECT_EQ(code_of_short_name("Backspace"), kDel);
  EXPECT_EQ(code_of_short_name("recents"), kAppSwitch);
  EXPECT_EQ(code_of_short_name("volup"), kVolumeUp);
  EXPECT_EQ(code_of_short_name("esc"), kEscape);
  EXPECT_FALSE(code_of_short_name("warp"));
  EXPECT_FALSE(code_of_short_name("4"));
}

}  // namespace
}  // namespace adbwire::keycodes
