// How Page reads the screen: one interface, whatever reads it. Internal.
//
//   WebMergeReader           debuggable WebViews' content added under their nodes (web/)
//     SettledReader          retries a busy screen; failure text becomes a typed failure
//       HelperReader         the on-device dumper while it works, else …
//         UiautomatorReader  `uiautomator dump` to /dev/tty or to a file, in one exec stream
//
// Page keeps the chain and reads from its top (or from SettledReader when a native ref is
// re-checked and the WebView round trips would buy nothing).
#pragma once

#include <string>

#include "adbwire/deadline.hpp"
#include "base/failure.hpp"

namespace adbwire::agent {

class ScreenReader {
 public:
  virtual ~ScreenReader() = default;

  // One reading of the screen: what the dump tool answered, a uiautomator XML hierarchy
  // (possibly with text around it) or, for a failure a dump tool reports as text, that text in
  // uiautomator's wording (classify_dump_output names it; SettledReader and above never return
  // it). failure is set when the reading itself failed (the connection, the helper, retries
  // exhausted); "" is returned then. Ends by deadline.
  virtual std::string read(Deadline deadline, detail::Failure& failure) = 0;
};

}  // namespace adbwire::agent
