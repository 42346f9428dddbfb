// Which activity is in the foreground, read from what `dumpsys` prints. Pure: the tests feed it
// real output of each Android version (tests/unit/services/data/PROVENANCE.md). Internal.
#pragma once

#include <optional>
#include <string_view>

#include "adbwire/apps.hpp"

namespace adbwire::detail {

// The component of the first record in text that names one: "ActivityRecord{HASH uN
// PACKAGE/ACTIVITY tTASK}" (the record's own closing brace comes right after the activity from
// Android 14: "ActivityRecord{HASH uN PACKAGE/ACTIVITY} tTASK}"; before Android 4.2 there is no
// "uN"), or "Window{HASH uN PACKAGE/ACTIVITY}". nullopt when the record has no PACKAGE/ACTIVITY
// (a window such as "Window{43e887a8 u0 com.lookout.enterprise}" or "StatusBar", or "null").
// The activity is shortened to ".Name" when it lies in the package.
std::optional<ForegroundActivity> parse_component_record(std::string_view text);

// The foreground activity of `dumpsys activity activities` or `dumpsys window` output: the
// first line that starts (after its indent) with a resumed-activity field — mResumedActivity
// (to Android 9, one per stack), topResumedActivity (Android 10+), ResumedActivity (Android
// 9+, per display area) — and holds an ActivityRecord; failing that the window manager's
// mFocusedApp (an ActivityRecord, before Android 11 inside AppWindowToken{… token=Token{…
// ActivityRecord{…}}}); failing that its mCurrentFocus window. nullopt when none names an
// activity (screen off, keyguard or a system window in front).
std::optional<ForegroundActivity> parse_foreground_activity(std::string_view dumpsys_output);

}  // namespace adbwire::detail
