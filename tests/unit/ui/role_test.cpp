// Role mapping of docs/design.md (Snapshot format) and editable inference, through the public
// pipeline.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::N;

std::string role_of(const std::string& cls) {
  N n;
  n.cls = cls;
  const Snapshot s = parse_dump(test::dump(n));
  return std::string(s.node(0).role);
}

TEST(Role, MapsEveryClassDesignNames) {
  const std::pair<const char*, const char*> table[] = {
      {"android.widget.TextView", "Text"},
      {"android.widget.EditText", "TextInput"},
      {"android.widget.Button", "Button"},
      {"androidx.appcompat.widget.AppCompatButton", "Button"},
      {"com.google.android.material.button.MaterialButton", "Button"},
      {"android.widget.ImageView", "Image"},
      {"android.widget.ImageButton", "ImageButton"},
      {"android.widget.CheckBox", "CheckBox"},
      {"android.widget.Switch", "Switch"},
      {"android.widget.RadioButton", "Radio"},
      {"android.widget.ToggleButton", "Toggle"},
      {"android.widget.SeekBar", "Slider"},
      {"android.widget.ProgressBar", "Progress"},
      {"android.widget.Spinner", "Select"},
      {"androidx.recyclerview.widget.RecyclerView", "List"},
      {"android.widget.ListView", "List"},
      {"android.widget.ScrollView", "ScrollView"},
      {"android.widget.LinearLayout", "Group"},
      {"android.widget.RelativeLayout", "Group"},
      {"android.widget.FrameLayout", "Group"},
      {"androidx.constraintlayout.widget.ConstraintLayout", "Group"},
      {"androidx.coordinatorlayout.widget.CoordinatorLayout", "Group"},
      {"android.view.ViewGroup", "Group"},
      {"com.google.android.material.tabs.TabLayout", "TabList"},
      {"com.google.android.material.tabs.TabItem", "Tab"},
      // The AppCompat, Material and SwitchCompat families.
      {"androidx.appcompat.widget.AppCompatTextView", "Text"},
      {"com.google.android.material.textview.MaterialTextView", "Text"},
      {"androidx.appcompat.widget.AppCompatImageView", "Image"},
      {"com.google.android.material.imageview.ShapeableImageView", "Image"},
      {"androidx.appcompat.widget.AppCompatImageButton", "ImageButton"},
      {"com.google.android.material.floatingactionbutton.FloatingActionButton", "ImageButton"},
      {"com.google.android.material.floatingactionbutton.ExtendedFloatingActionButton", "Button"},
      {"androidx.appcompat.widget.AppCompatCheckBox", "CheckBox"},
      {"com.google.android.material.checkbox.MaterialCheckBox", "CheckBox"},
      {"androidx.appcompat.widget.AppCompatRadioButton", "Radio"},
      {"com.google.android.material.radiobutton.MaterialRadioButton", "Radio"},
      {"androidx.appcompat.widget.SwitchCompat", "Switch"},
      {"com.google.android.material.switchmaterial.SwitchMaterial", "Switch"},
      {"com.google.android.material.materialswitch.MaterialSwitch", "Switch"},
      {"androidx.appcompat.widget.AppCompatToggleButton", "Toggle"},
      {"com.google.android.material.chip.Chip", "Chip"},
      {"com.google.android.material.chip.ChipGroup", "Group"},
      {"androidx.appcompat.widget.AppCompatSeekBar", "Slider"},
      {"com.google.android.material.slider.Slider", "Slider"},
      {"com.google.android.material.slider.RangeSlider", "Slider"},
      {"com.google.android.material.progressindicator.LinearProgressIndicator", "Progress"},
      {"com.google.android.material.progressindicator.CircularProgressIndicator", "Progress"},
      {"androidx.appcompat.widget.AppCompatSpinner", "Select"},
      {"android.widget.GridView", "List"},
      {"androidx.core.widget.NestedScrollView", "ScrollView"},
      {"android.widget.HorizontalScrollView", "ScrollView"},
      {"androidx.cardview.widget.CardView", "Card"},
      {"com.google.android.material.card.MaterialCardView", "Card"},
      {"androidx.appcompat.widget.LinearLayoutCompat", "Group"},
      {"android.widget.TabWidget", "TabList"},
  };
  for (const auto& [cls, role] : table) EXPECT_EQ(role_of(cls), role) << cls;
}

TEST(Role, CheckedTextViewIsACheckBoxWhenItCanBeChecked) {
  N n;
  n.cls = "android.widget.CheckedTextView";
  n.checkable = true;
  EXPECT_EQ(parse_dump(test::dump(n)).node(0).role, "CheckBox");
  n.checkable = false;  // navigation menus use it as a label
  EXPECT_EQ(parse_dump(test::dump(n)).node(0).role, "Text");
  n.cls = "androidx.appcompat.widget.AppCompatCheckedTextView";
  EXPECT_EQ(parse_dump(test::dump(n)).node(0).role, "Text");
}

TEST(Role, OtherClassesUseTheirLastSegment) {
  EXPECT_EQ(role_of("android.webkit.WebView"), "WebView");
  EXPECT_EQ(role_of("android.view.View"), "View");
  EXPECT_EQ(role_of("androidx.viewpager.widget.ViewPager"), "ViewPager");
  EXPECT_EQ(role_of("X.Wzo"), "Wzo");
  EXPECT_EQ(role_of("NoPackage"), "NoPackage");
  EXPECT_EQ(role_of(""), "View");
}

TEST(Role, EditableIsInferredFromTheClass) {
  for (const char* cls :
       {"android.widget.EditText", "androidx.appcompat.widget.AppCompatEditText",
        "com.google.android.material.textfield.TextInputEditText",
        "android.widget.AutoCompleteTextView", "android.widget.SearchView$SearchAutoComplete"}) {
    N n;
    n.cls = cls;
    const Snapshot s = parse_dump(test::dump(n));
    EXPECT_TRUE(s.node(0).editable) << cls;
    EXPECT_EQ(s.node(0).role, "TextInput") << cls;
    EXPECT_EQ(s.node(0).ref, 1u) << cls << ": editable nodes get a ref even when not clickable";
  }
  for (const char* cls :
       {"android.widget.TextView", "android.widget.Button", "android.widget.EditTextHelper"}) {
    N n;
    n.cls = cls;
    EXPECT_FALSE(parse_dump(test::dump(n)).node(0).editable) << cls;
  }
}

}  // namespace
}  // namespace adbwire::ui
