// Android key codes (android.view.KeyEvent), in one table for the host that sends them (Page's
// press and type) and the virtual device that receives them (`input keyevent`). Internal.
#pragma once

#include <optional>
#include <string_view>

namespace adbwire::keycodes {

// The codes adbwire sends itself or names for agents.
inline constexpr int kHome = 3;
inline constexpr int kBack = 4;
inline constexpr int kDpadUp = 19;
inline constexpr int kDpadDown = 20;
inline constexpr int kDpadLeft = 21;
inline constexpr int kDpadRight = 22;
inline constexpr int kVolumeUp = 24;
inline constexpr int kVolumeDown = 25;
inline constexpr int kPower = 26;
inline constexpr int kCamera = 27;
inline constexpr int kTab = 61;
inline constexpr int kSpace = 62;
inline constexpr int kEnter = 66;
inline constexpr int kDel = 67;   // backspace: deletes the character before the cursor
inline constexpr int kMenu = 82;  // also dismisses a swipe keyguard before `wm dismiss-keyguard`
inline constexpr int kSearch = 84;
inline constexpr int kEscape = 111;
inline constexpr int kMoveEnd = 123;
inline constexpr int kAppSwitch = 187;  // the recent apps screen
inline constexpr int kWakeup = 224;
inline constexpr int kPaste = 279;  // inserts the clipboard into the focused field (API 24+)

// The code KeyEvent gives a "KEYCODE_…" name of the codes above ("KEYCODE_BACK" → 4); nullopt for
// any other text. Exact match: `input keyevent` takes the names in upper case.
std::optional<int> code_of_keycode_name(std::string_view name) noexcept;

// The code of a short name agents use, in any case: back, home, enter, delete (del,
// backspace), tab, escape (esc), up, down, left, right, space, power, volup, voldown, recent
// (recents, app_switch), menu, paste, wakeup, search, camera. nullopt for any other text.
std::optional<int> code_of_short_name(std::string_view name) noexcept;

}  // namespace adbwire::keycodes
