// Acting on an element named by a selector instead of a ref: one call where an agent would
// otherwise find, then tap. Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "verbs/call.hpp"

namespace adbwire::verbs {

// Whether the call names an element by selector (`selector`, `id`, `text` or `desc`). For type,
// whose `text` is what to type, with_text is false and `text` is no selector.
bool has_selector(const Call& call, bool with_text = true);

// An element a selector named, in the Page's last snapshot (the one select_element took).
struct Selected {
  ui::NodeIndex node = ui::kNoNode;
  std::uint32_t ref = 0;  // its own ref; 0 when it has none
};

// The one element the call's selector names in a snapshot taken now, among all its elements,
// refs or not. `selector` matches, in this order, the first non-empty of: exact resource-id
// (whole, or the name after ":id/"), exact text, exact content-desc, then the same as
// case-insensitive substrings; `id`, `text` and `desc` match that field only (exact first, then
// substring). Matches that are not visible are left out; a match inside another (a labelled
// row and its label) is one element with it: the one holding a ref, else the inner one.
// Errors: not_found (nothing matches, or only what is not on the screen: scroll to it),
// invalid_argument (several equally good: the message lists each with its ref or its place).
Selected select_element(Call& call, bool with_text = true);

// Where an action on an element without a ref goes: its clear tap point (ui::ElementInfo) in
// the part of it on the screen. Errors: not_found when no part of it is on the screen,
// invalid_argument when that part is under 8 pixels wide or high (too small to tap).
ui::Point touch_point(const ui::Snapshot& snapshot, ui::NodeIndex node);

// Whether any element of a snapshot taken now matches the call's selector (as select_element
// matches, visible or not): what wait waits for.
bool selector_matches(Call& call);

// A short name of the selector for replies: text "OK", id submit, …
std::string selector_label(const Call& call, bool with_text = true);

}  // namespace adbwire::verbs
