#include "base/keycodes.hpp"

#include <cctype>
#include <utility>

namespace adbwire::keycodes {
namespace {

using Named = std::pair<std::string_view, int>;

constexpr Named kKeycodeNames[] = {
    {"KEYCODE_HOME", kHome},
    {"KEYCODE_BACK", kBack},
    {"KEYCODE_DPAD_UP", kDpadUp},
    {"KEYCODE_DPAD_DOWN", kDpadDown},
    {"KEYCODE_DPAD_LEFT", kDpadLeft},
    {"KEYCODE_DPAD_RIGHT", kDpadRight},
    {"KEYCODE_VOLUME_UP", kVolumeUp},
    {"KEYCODE_VOLUME_DOWN", kVolumeDown},
    {"KEYCODE_POWER", kPower},
    {"KEYCODE_CAMERA", kCamera},
    {"KEYCODE_TAB", kTab},
    {"KEYCODE_SPACE", kSpace},
    {"KEYCODE_ENTER", kEnter},
    {"KEYCODE_DEL", kDel},
    {"KEYCODE_MENU", kMenu},
    {"KEYCODE_SEARCH", kSearch},
    {"KEYCODE_ESCAPE", kEscape},
    {"KEYCODE_MOVE_END", kMoveEnd},
    {"KEYCODE_APP_SWITCH", kAppSwitch},
    {"KEYCODE_WAKEUP", kWakeup},
    {"KEYCODE_PASTE", kPaste},
};

constexpr Named kShortNames[] = {
    {"back", kBack},
    {"home", kHome},
    {"enter", kEnter},
    {"delete", kDel},
    {"del", kDel},
    {"backspace", kDel},
    {"tab", kTab},
    {"escape", kEscape},
    {"esc", kEscape},
    {"up", kDpadUp},
    {"down", kDpadDown},
    {"left", kDpadLeft},
    {"right", kDpadRight},
    {"space", kSpace},
    {"power", kPower},
    {"volup", kVolumeUp},
    {"voldown", kVolumeDown},
    {"recent", kAppSwitch},
    {"recents", kAppSwitch},
    {"app_switch", kAppSwitch},
    {"menu", kMenu},
    {"paste", kPaste},
    {"wakeup", kWakeup},
    {"search", kSearch},
    {"camera", kCamera},
};

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace

std::optional<int> code_of_keycode_name(std::string_view name) noexcept {
  for (const auto& [known, code] : kKeycodeNames) {
    if (known == name) return code;
  }
  return std::nullopt;
}

std::optional<int> code_of_short_name(std::string_view name) noexcept {
  for (const auto& [known, code] : kShortNames) {
    if (equal_ignoring_case(known, name)) return code;
  }
  return std::nullopt;
}

}  // namespace adbwire::keycodes
