// Ref tokens and stale-ref resolution: exact hit, unique identity hit, otherwise stale_ref.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "adbwire/error.hpp"
#include "adbwire/ui.hpp"
#include "unit/ui/dump_builder.hpp"

namespace adbwire::ui {
namespace {

using test::button;
using test::group;
using test::N;
using ::testing::HasSubstr;

Snapshot snap(const std::vector<N>& roots) { return parse_dump(test::dump(roots)); }

N at(N n, const std::string& bounds) {
  n.bounds = bounds;
  return n;
}

TEST(Refs, ExactHitWinsEvenAmongLookAlikes) {
  const Snapshot before =
      snap({at(button("Add"), "[0,0][100,50]"), at(button("Add"), "[0,100][100,150]")});
  const Snapshot after =
      snap({at(button("Add"), "[0,0][100,50]"), at(button("Add"), "[0,100][100,150]")});
  EXPECT_EQ(resolve(*before.ref(2), after), 1u);
  EXPECT_EQ(resolve(*before.ref(1), after), 0u);
}

TEST(Refs, UniqueIdentityHitFollowsAMovedElement) {
  const Snapshot before =
      snap({at(button("Cancel"), "[0,0][100,50]"), at(button("OK"), "[0,100][100,150]")});
  // A banner appeared above: everything moved down by 300 px.
  N banner = test::text("New version available");
  const Snapshot after = snap(
      {banner, at(button("Cancel"), "[0,300][100,350]"), at(button("OK"), "[0,400][100,450]")});
  EXPECT_EQ(after.node(resolve(*before.ref(2), after)).text, "OK");
}

TEST(Refs, AmbiguousOrMissingIsStaleNeverAGuess) {
  const Snapshot before =
      snap({at(button("Add"), "[0,0][100,50]"), at(button("Add"), "[0,100][100,150]")});
  // The list scrolled: both "Add" buttons moved, so neither exact token matches.
  const Snapshot scrolled =
      snap({at(button("Add"), "[0,40][100,90]"), at(button("Add"), "[0,140][100,190]")});
  std::error_code error;
  EXPECT_EQ(resolve(*before.ref(1), scrolled, error), kNoNode);
  EXPECT_EQ(error, errc::stale_ref);
  const Snapshot other = snap({button("Delete")});
  EXPECT_EQ(resolve(*before.ref(1), other, error), kNoNode);
  EXPECT_EQ(error, errc::stale_ref);
  try {
    resolve(*before.ref(1), scrolled);
    FAIL() << "an ambiguous ref resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::stale_ref);
    EXPECT_THAT(e.what(), HasSubstr("ref 1 (Button \"Add\")"));
    EXPECT_THAT(e.what(), HasSubstr("take a new snapshot"));
  }
}

TEST(Refs, FocusSelectionAndCheckedDoNotStaleARef) {
  N field;
  field.cls = "android.widget.EditText";
  field.id = "com.x:id/name";
  field.bounds = "[0,0][500,80]";
  N other = field;
  other.id = "com.x:id/mail";
  other.bounds = "[0,100][500,180]";
  const Snapshot before = snap({field, other});
  // type(ref)'s focus tap focuses and selects the field and the user's text appears in it.
  N typed = field;
  typed.focused = true;
  typed.selected = true;
  typed.text = "Ada";
  const Snapshot after = snap({typed, other});
  EXPECT_EQ(before.ref(1)->exact_token, after.ref(1)->exact_token);
  EXPECT_EQ(before.ref(1)->identity_token, after.ref(1)->identity_token);
  EXPECT_EQ(resolve(*before.ref(1), after), 0u);

  N box = button("Remember me");
  box.checkable = true;
  const Snapshot unchecked = snap({box});
  box.checked = true;
  box.focused = true;
  EXPECT_EQ(resolve(*unchecked.ref(1), snap({box})), 0u);
}

TEST(Refs, BoundsAreQuantizedInTheExactToken) {
  const Snapshot a = snap({at(button("Go"), "[16,16][96,48]")});
  const Snapshot b = snap({at(button("Go"), "[17,20][100,50]")});  // same 8 px cells
  const Snapshot c = snap({at(button("Go"), "[40,16][120,48]")});  // moved by 24 px
  EXPECT_EQ(a.ref(1)->exact_token, b.ref(1)->exact_token);
  EXPECT_NE(a.ref(1)->exact_token, c.ref(1)->exact_token);
  EXPECT_EQ(a.ref(1)->identity_token, c.ref(1)->identity_token);
  // Partly off-screen: -16 and -9 share a cell, so do -8 and -1.
  const Snapshot negative = snap({at(button("Go"), "[-16,-16][-1,-1]")});
  EXPECT_EQ(negative.ref(1)->exact_token,
            snap({at(button("Go"), "[-9,-9][-8,-8]")}).ref(1)->exact_token);
  EXPECT_NE(negative.ref(1)->exact_token,
            snap({at(button("Go"), "[-17,-16][-1,-1]")}).ref(1)->exact_token);
}

TEST(Refs, IdentityNamesWhatTheElementIs) {
  const Snapshot base = snap({button("Go")});
  N other_text = button("Stop");
  N other_id = button("Go");
  other_id.id = "com.x:id/go";
  N other_desc = button("Go");
  other_desc.desc = "go";
  N other_class = button("Go");
  other_class.cls = "android.widget.ImageButton";
  N not_long = button("Go");
  not_long.extra = R"(long-clickable="true")";
  for (const N& n : {other_text, other_id, other_desc, other_class, not_long}) {
    EXPECT_NE(base.ref(1)->identity_token, snap({n}).ref(1)->identity_token);
  }
  EXPECT_EQ(base.ref(1)->label, "Button \"Go\"");
}

TEST(Refs, RefInfoOutlivesItsSnapshot) {
  RefInfo kept;
  {
    const Snapshot before = snap({button("Send")});
    kept = *before.ref(1);
  }
  EXPECT_EQ(resolve(kept, snap({button("Send")})), 0u);
  std::error_code error;
  EXPECT_EQ(resolve(RefInfo{}, snap({button("Send")}), error), kNoNode);
  EXPECT_EQ(error, errc::invalid_argument);
}

TEST(Refs, LongPressOnlyAndCheckOnlyControlsGetRefs) {
  // WhatsApp's voice-message button answers only a long press.
  N voice;
  voice.cls = "android.widget.ImageButton";
  voice.desc = "Voice message";
  voice.long_clickable = true;
  N toggle;
  toggle.cls = "androidx.appcompat.widget.SwitchCompat";
  toggle.text = "Wi-Fi";
  toggle.checkable = true;
  // A list dialog's row: the row is clickable; its radio and CheckedTextView only checkable.
  N radio;
  radio.cls = "android.widget.RadioButton";
  radio.checkable = true;
  radio.checked = true;
  N label;
  label.cls = "android.widget.CheckedTextView";
  label.text = "LTE";
  label.checkable = true;
  label.checked = true;
  N row = group({radio, label});
  row.clickable = true;
  const Snapshot s = snap({group({voice, toggle, row})});
  EXPECT_EQ(test::node_lines(s.to_text()),
            "- Group:\n"
            "  - ImageButton [ref=1] (Voice message)\n"
            "  - Switch [ref=2] \"Wi-Fi\"\n"
            "  - Group [ref=3]:\n"
            "    - Radio [checked]\n"
            "    - CheckBox \"LTE\" [checked]\n");
  EXPECT_EQ(s.ref(1)->label, "ImageButton (Voice message)");
  EXPECT_EQ(resolve(*s.ref(1), snap({group({voice, toggle, row})})), s.ref(1)->node);
}

TEST(Refs, AllWindowsRefsResolveWhereverTheirWindowSitsInTheDump) {
  const N app =
      test::window("com.example", "[0,0][1080,2400]", {at(button("Send"), "[0,2000][200,2100]")});
  const N keys = test::window("com.google.android.inputmethod.latin", "[0,1500][1080,2300]",
                              {at(button("q"), "[0,1600][100,1700]")});
  const Snapshot before = snap({keys, app});
  ASSERT_EQ(before.ref(1)->label, "Button \"Send\"") << "the app's refs come first";
  const Snapshot after = snap({app, keys});  // the windows listed in another order
  EXPECT_EQ(after.node(resolve(*before.ref(1), after)).text, "Send");
  EXPECT_EQ(after.node(resolve(*before.ref(2), after)).text, "q");
  // Without its keyboard the app's ref still resolves; the key's is stale.
  const Snapshot closed = snap({app});
  EXPECT_EQ(closed.node(resolve(*before.ref(1), closed)).text, "Send");
  std::error_code error;
  EXPECT_EQ(resolve(*before.ref(2), closed, error), kNoNode);
  EXPECT_EQ(error, errc::stale_ref);
}

TEST(Refs, TokensAreStableAcrossTwoParses) {
  const std::string xml = test::dump(group({button("A"), button("B")}));
  const Snapshot first = parse_dump(xml);
  const Snapshot second = parse_dump(xml);
  ASSERT_EQ(first.refs().size(), second.refs().size());
  for (std::size_t i = 0; i < first.refs().size(); ++i) {
    EXPECT_EQ(first.refs()[i].exact_token, second.refs()[i].exact_token);
    EXPECT_EQ(first.refs()[i].identity_token, second.refs()[i].identity_token);
  }
}

}  // namespace
}  // namespace adbwire::ui
