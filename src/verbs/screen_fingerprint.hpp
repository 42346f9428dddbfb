// A screen's fingerprint, the key of the observation cache (docs/memory.md): the same screen of
// an app gives the same fingerprint across clocks, counters, typed text, scrolling and sessions;
// another screen of it gives another. Internal.
#pragma once

#include <string>

#include "adbwire/ui.hpp"

namespace adbwire::verbs {

// 16 hex digits (the first 64 bits of a SHA-256) over the snapshot's skeleton: its app (package
// and activity) and, for each window that is not the status bar, the navigation bar or a
// keyboard, the window's kind and package and the elements with a ref in it, each as role, class,
// resource-id and what it accepts (click, long click, text, scroll, check). Text, descriptions,
// bounds and states (checked, focused, selected, enabled) are left out: they change while the
// screen stays. Runs of alike elements are one, and a scrollable's elements a set, so a list
// shows the same screen whatever its length or scroll position. "" for a snapshot without nodes.
std::string screen_fingerprint(const ui::Snapshot& snapshot);

// What the screen shows, for the cache's `seen`: "PACKAGE/ACTIVITY: " and the labels of its
// first refs ('Button "Add item", TextInput "Name"'), at most max bytes.
std::string screen_summary(const ui::Snapshot& snapshot, std::size_t max = 1024);

}  // namespace adbwire::verbs
