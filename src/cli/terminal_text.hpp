// What the CLI prints from a device, a server or a capture — names, models, package lists,
// answers, log messages, error details — goes through shown() first: a device (or an app on
// it, or a web page in a WebView) could otherwise set the window title, clear the screen or
// hide text with escape sequences. Only the raw output of shell and exec-out is left raw:
// that is what the user asked for.
#pragma once

#include <string>
#include <string_view>

namespace adbwire::cli {

// text with control characters escaped (protocol::printable), line breaks kept, so multi-line
// answers and stack traces stay readable.
std::string shown(std::string_view text);

}  // namespace adbwire::cli
