// Text from a peer made safe to show: a device names its files, models and packages, and an
// adb server words its FAIL replies, so any of those may hold terminal control sequences (set
// the window title, clear the screen, move the cursor) or bytes that are not UTF-8. Every
// message adbwire builds around such text, and everything its programs print from a device
// (except the raw output of shell and exec-out, which the user asked for), goes through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace adbwire::protocol {

// `text` with every byte that could act on a terminal written out visibly: \n, \r, \t as
// such, other C0 controls, DEL and bytes that are not well-formed UTF-8 as \xNN, C1
// controls (U+0080..U+009F) and the bidirectional overrides and isolates (U+202A..U+202E,
// U+2066..U+2069) as \u{XXXX}. Printable UTF-8, backslashes included, passes unchanged, so
// applying it twice gives the same result as once. With max_bytes != 0 the input is cut after
// that many bytes and "…" appended, so a hostile peer cannot flood a message.
std::string printable(std::string_view text, std::size_t max_bytes = 0);

// True when printable(text) == text: nothing in text needs escaping.
bool is_printable(std::string_view text) noexcept;

// JSON text (as a serializer wrote it: control characters below U+0020 already escaped) with
// what JSON leaves raw but a terminal acts on — DEL, C1 controls (U+0080..U+009F), the
// bidirectional overrides and isolates, the line and paragraph separators — written as \uXXXX,
// so a reader gets the same strings and a terminal showing the JSON sees no control. Those
// code points can only stand inside strings, where \uXXXX means them; other bytes pass
// unchanged. Idempotent.
std::string printable_json(std::string_view json);

}  // namespace adbwire::protocol
