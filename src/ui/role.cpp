#include <array>
#include <utility>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

std::string_view last_segment(std::string_view class_name) noexcept {
  const auto dot = class_name.rfind('.');
  return dot == std::string_view::npos ? class_name : class_name.substr(dot + 1);
}

// DESIGN.md, "Snapshot format": the role names agents of the baremobile family expect.
constexpr std::array<std::pair<std::string_view, std::string_view>, 25> kRoles{{
    {"TextView", "Text"},
    {"EditText", "TextInput"},
    {"Button", "Button"},
    {"AppCompatButton", "Button"},
    {"MaterialButton", "Button"},
    {"ImageView", "Image"},
    {"ImageButton", "ImageButton"},
    {"CheckBox", "CheckBox"},
    {"Switch", "Switch"},
    {"RadioButton", "Radio"},
    {"ToggleButton", "Toggle"},
    {"SeekBar", "Slider"},
    {"ProgressBar", "Progress"},
    {"Spinner", "Select"},
    {"RecyclerView", "List"},
    {"ListView", "List"},
    {"ScrollView", "ScrollView"},
    {"LinearLayout", "Group"},
    {"RelativeLayout", "Group"},
    {"FrameLayout", "Group"},
    {"ConstraintLayout", "Group"},
    {"CoordinatorLayout", "Group"},
    {"ViewGroup", "Group"},
    {"TabLayout", "TabList"},
    {"TabItem", "Tab"},
}};

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool is_editable_class(std::string_view class_name) noexcept {
  // EditText subclasses keep the name as a suffix (AppCompatEditText, TextInputEditText);
  // AutoCompleteTextView and SearchView's field derive from EditText under other names.
  const auto name = last_segment(class_name);
  return ends_with(name, "EditText") || ends_with(name, "AutoCompleteTextView") ||
         ends_with(name, "$SearchAutoComplete");
}

std::string_view role_for_class(std::string_view class_name, bool editable) noexcept {
  if (editable) return "TextInput";
  const auto name = last_segment(class_name);
  if (name.empty()) return "View";
  for (const auto& [cls, role] : kRoles) {
    if (name == cls) return role;
  }
  return name;
}

}  // namespace adbwire::ui
