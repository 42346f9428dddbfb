// The words of verb replies, shared by the verbs: quoting, numbers, what to do after a failure,
// element descriptions, and the snapshot fitted to a reply's budget. Internal.
#pragma once

#include <string>
#include <string_view>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "verbs/call.hpp"

namespace adbwire::verbs {

// The failure's detail, with what to do next where the library's words do not say it already.
std::string advice(const Error& e, const std::string& device);

// "text" with quotes, backslashes and line breaks escaped.
std::string in_quotes(std::string_view text);
// 540 for 540.0, 0.25 for 0.25.
std::string format_number(double value);
// " (Button "Submit")" for a ref of the latest snapshot, with its row when it has one
// (" (Button "Follow" in the row "Alice")"); "" when it issued no such ref.
std::string label_of(const Page& page, std::uint32_t ref);
// "Text fields on the screen: ref 3 (TextInput hint="Name"), …", or that there is none.
std::string text_fields(const Page& page);
// What a type reply adds about the field afterwards: nothing when it shows the text, what it
// reads and what that suggests when it reads otherwise, why it was not read back.
std::string typed_note(std::string_view typed, const TypeResult& result);
// "- Button [ref=5] "Add" (desc) id=… centre (540, 1200)"; for an element without a ref, the
// ref of the nearest element around it that has one.
std::string describe(const ui::Snapshot& snapshot, ui::NodeIndex index);
// What the ref check found for the last action: "" when the element was where the snapshot
// showed it and enabled; that it had moved (from (x, y) to (x, y): the action went where it is
// now), that it is disabled (the app may ignore the action).
std::string moved_note(const Page& page);

// The first line of a snapshot whose text was read from the pixels: what it cost, or why it
// could not be read; "" when no reading was needed.
std::string ocr_line(const OcrStatus& ocr);
// The snapshot text as it goes into a reply: whole when it fits the budget, else saved to a
// file (the path, the counts and as much of a compact interactive view as fits).
std::string fit(Call& call, const Page& page, std::string text);
// Output cut to the snapshot budget, saying how much was cut.
std::string cap(const Call& call, const std::string& output);
// An action's reply: its summary, what the ref check saw, and with auto_snapshot the screen
// after it settled.
Reply action_done(Call& call, std::string summary);

}  // namespace adbwire::verbs
