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

// The ref of the one element the call's selector names, in a snapshot taken now. `selector`
// matches, in this order, the first non-empty of: exact resource-id (whole, or the name after
// ":id/"), exact text, exact content-desc, then the same as case-insensitive substrings; `id`,
// `text` and `desc` match that field only (exact first, then substring). An element without a
// ref stands for the nearest element around it that has one. Errors: not_found (nothing
// matches), invalid_argument (several do: the message lists them with their refs).
std::uint32_t ref_by_selector(Call& call, bool with_text = true);

// Whether any element of a snapshot taken now matches the call's selector (as ref_by_selector
// matches, refs or not): what wait waits for.
bool selector_matches(Call& call);

// A short name of the selector for replies: text "OK", id submit, …
std::string selector_label(const Call& call, bool with_text = true);

}  // namespace adbwire::verbs
