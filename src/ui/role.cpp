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

// Nodes adbwire adds from a WebView's accessibility tree (PageOptions::web) have the class
// "web.<CDP AX role>"; their role names follow the native ones where there is one.
constexpr std::string_view kWebPrefix = "web.";
constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kWebRoles{{
    {"button", "Button"},        {"link", "Link"},
    {"textbox", "TextInput"},    {"searchbox", "TextInput"},
    {"spinbutton", "TextInput"}, {"combobox", "Select"},
    {"listbox", "Select"},       {"option", "Option"},
    {"checkbox", "CheckBox"},    {"radio", "Radio"},
    {"switch", "Switch"},        {"slider", "Slider"},
    {"menuitem", "MenuItem"},    {"tab", "Tab"},
    {"tablist", "TabList"},      {"heading", "Heading"},
    {"image", "Image"},          {"img", "Image"},
    {"StaticText", "Text"},      {"list", "List"},
    {"listitem", "ListItem"},    {"progressbar", "Progress"},
    {"dialog", "Dialog"},        {"RootWebArea", "WebPage"},
}};

bool ends_with(std::string_view s, std::string_view suffix) noexcept {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool is_editable_class(std::string_view class_name) noexcept {
  // EditText subclasses keep the name as a suffix (AppCompatEditText, TextInputEditText);
  // AutoCompleteTextView and SearchView's field derive from EditText under other names.
  if (class_name.starts_with(kWebPrefix)) {
    const auto role = class_name.substr(kWebPrefix.size());
    return role == "textbox" || role == "searchbox" || role == "spinbutton";
  }
  const auto name = last_segment(class_name);
  return ends_with(name, "EditText") || ends_with(name, "AutoCompleteTextView") ||
         ends_with(name, "$SearchAutoComplete");
}

std::string_view role_for_class(std::string_view class_name, bool editable) noexcept {
  if (editable) return "TextInput";
  if (class_name.starts_with(kWebPrefix)) {
    const auto role = class_name.substr(kWebPrefix.size());
    for (const auto& [ax, name] : kWebRoles) {
      if (role == ax) return name;
    }
    return "Group";
  }
  const auto name = last_segment(class_name);
  if (name.empty()) return "View";
  for (const auto& [cls, role] : kRoles) {
    if (name == cls) return role;
  }
  return name;
}

}  // namespace adbwire::ui
