// Where text leaves the CLI for a terminal. A device (or an app on it, a web page in a WebView, a
// capture file, another user's socket) names files, models, packages and activities, words its
// answers and fills the screen a verb reads back, so any of it may hold escape sequences that set
// the window title, clear the screen, write the clipboard (OSC 52) or reorder what is shown (bidi
// overrides). Everything the programs print goes through print() or print_error(), which escape
// what a terminal would act on (protocol::printable), line breaks kept; so a new command cannot
// forget it. scripts/check-style refuses a direct write to stdout or stderr anywhere else in
// src/cli and src/mcp. Only the raw output of shell and exec-out (connect.hpp's write_to), which
// the user asked for, and the MCP server's JSON lines (protocol::printable_json) leave otherwise.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace adbwire::cli {

// text with control characters escaped (protocol::printable), line breaks kept, so multi-line
// answers and stack traces stay readable.
std::string shown(std::string_view text);

// printf into a string, for building what print() shows.
[[gnu::format(printf, 1, 2)]] std::string format(const char* pattern, ...);

// Writes shown(text) to stdout and flushes. false when the write failed (a closed pipe, a
// full disk).
bool print(std::string_view text);
// Writes shown(text) and a line break to stderr.
void print_error(std::string_view text);
// Writes one line of tab-separated fields to stdout (adb's listings), each shown(), so a field
// cannot add columns or lines of its own. false when the write failed.
bool print_fields(std::initializer_list<std::string_view> fields);

// A progress line on stderr, redrawn in place: our own "\r" and erase-line, then shown(text).
// end_progress() erases it.
void progress(std::string_view text);
void end_progress();

// "\r\n[ disconnected ]\r\n" on stderr: an interactive shell's end, the terminal still raw.
void disconnected_line();

}  // namespace adbwire::cli
