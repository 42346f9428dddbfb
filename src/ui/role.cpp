#include <array>
#include <utility>

#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

std::string_view last_segment(std::string_view class_name) noexcept {
  const auto dot = class_name.rfind('.');
  return dot == std::string_view::npos ? class_name : class_name.substr(dot + 1);
}

// docs/design.md, Snapshot format: the role names agents of the baremobile family expect. The
// AppCompat and Material widgets derive from the framework ones and get their roles (most
// report the framework class to accessibility, but Appium and newer dumpers name their own).
constexpr std::array<std::pair<std::string_view, std::string_view>, 57> kRoles{{
    {"TextView", "Text"},
    {"AppCompatTextView", "Text"},
    {"MaterialTextView", "Text"},
    {"EditText", "TextInput"},
    {"Button", "Button"},
    {"AppCompatButton", "Button"},
    {"MaterialButton", "Button"},
    {"ExtendedFloatingActionButton", "Button"},
    {"ImageView", "Image"},
    {"AppCompatImageView", "Image"},
    {"ShapeableImageView", "Image"},
    {"ImageButton", "ImageButton"},
    {"AppCompatImageButton", "ImageButton"},
    {"FloatingActionButton", "ImageButton"},
    {"CheckBox", "CheckBox"},
    {"AppCompatCheckBox", "CheckBox"},
    {"MaterialCheckBox", "CheckBox"},
    {"CheckedTextView", "CheckBox"},  // "Text" when not checkable (role_for_class)
    {"AppCompatCheckedTextView", "CheckBox"},
    {"Switch", "Switch"},
    {"SwitchCompat", "Switch"},
    {"SwitchMaterial", "Switch"},
    {"MaterialSwitch", "Switch"},
    {"RadioButton", "Radio"},
    {"AppCompatRadioButton", "Radio"},
    {"MaterialRadioButton", "Radio"},
    {"ToggleButton", "Toggle"},
    {"AppCompatToggleButton", "Toggle"},
    {"Chip", "Chip"},
    {"SeekBar", "Slider"},
    {"AppCompatSeekBar", "Slider"},
    {"Slider", "Slider"},
    {"RangeSlider", "Slider"},
    {"ProgressBar", "Progress"},
    {"LinearProgressIndicator", "Progress"},
    {"CircularProgressIndicator", "Progress"},
    {"Spinner", "Select"},
    {"AppCompatSpinner", "Select"},
    {"RecyclerView", "List"},
    {"ListView", "List"},
    {"GridView", "List"},
    {"ScrollView", "ScrollView"},
    {"NestedScrollView", "ScrollView"},
    {"HorizontalScrollView", "ScrollView"},
    {"CardView", "Card"},
    {"MaterialCardView", "Card"},
    {"LinearLayout", "Group"},
    {"LinearLayoutCompat", "Group"},
    {"RelativeLayout", "Group"},
    {"FrameLayout", "Group"},
    {"ConstraintLayout", "Group"},
    {"CoordinatorLayout", "Group"},
    {"ViewGroup", "Group"},
    {"ChipGroup", "Group"},
    {"TabLayout", "TabList"},
    {"TabWidget", "TabList"},
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

std::string_view role_for_class(std::string_view class_name, bool editable,
                                bool checkable) noexcept {
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
    if (name != cls) continue;
    // A CheckedTextView that cannot be checked is a plain label (navigation menus use them).
    if (role == "CheckBox" && !checkable && ends_with(name, "CheckedTextView")) return "Text";
    return role;
  }
  return name;
}

}  // namespace adbwire::ui
