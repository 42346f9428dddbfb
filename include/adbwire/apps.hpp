// Apps on a device: start one, stop one, ask which one is in the foreground, list them. Each
// call is one shell command (`monkey`/`am start`, `am force-stop`, `dumpsys activity
// activities`, `pm list packages`) over the open connection. Installing and uninstalling are
// in install.hpp.
//
// Errors common to every call: those of Device::shell (timeout, device_offline, closed,
// protocol_error), and command_failed when the tool exits non-zero (the message names the
// command and quotes the end of its output). The error_code overloads leave the message in
// last_error_detail() (error_detail.hpp).
//
// Thread safety: as Device; the calls keep no state.
#pragma once

#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// Package and activity in the foreground ("com.android.settings", ".Settings"). The activity is
// shortened to ".Name" when it lies in the package, as `am start -n` takes it.
struct ForegroundActivity {
  std::string package;
  std::string activity;
};

// An intent to start an activity with (`am start`): open a URL, share text, show a setting.
struct Intent {
  std::string action;     // -a, e.g. android.intent.action.VIEW
  std::string data;       // -d, a URI: https://…, geo:…, tel:…, market://details?id=…
  std::string mime_type;  // -t
  std::string package;    // -p: only this app may take it
  std::string component;  // -n PACKAGE/ACTIVITY: exactly this activity
  std::vector<std::string> categories;                      // -c each
  std::vector<std::pair<std::string, std::string>> extras;  // --es KEY VALUE each
};

// The intent that opens a URL the way tapping a link does (action VIEW, data url).
Intent view_intent(std::string_view url);

// Starts the activity the intent resolves to (`am start -W`, every value shell-quoted, so any text
// is safe). Returns which activity took it ("com.android.chrome/.Main" as am reports it; "" when
// am does not say). Errors also: invalid_argument (an intent with neither action, data nor
// component), not_found (no activity takes it: the message quotes am), command_failed (am reported
// another error, such as a permission denial).
std::string start_intent(Device& device, const Intent& intent,
                         Deadline deadline = kDefaultDeadline);
std::string start_intent(Device& device, const Intent& intent, Deadline deadline,
                         std::error_code& error);

// Starts package: its launcher activity through `monkey -p PACKAGE -c
// android.intent.category.LAUNCHER 1`, or with a non-empty activity (".Main", or a full class
// name) `am start -n PACKAGE/ACTIVITY`. Returns once the tool has sent the intent, not when the
// app has drawn. Errors also: invalid_argument (a name with characters no package or activity
// has: only letters, digits, '.', '_' and '$' in an activity, so nothing reaches the shell
// unquoted), not_found (no such package or activity, or nothing to launch in it: the message
// quotes the tool), command_failed (the tool reported another error).
void launch_app(Device& device, std::string_view package, std::string_view activity = {},
                Deadline deadline = kDefaultDeadline);
void launch_app(Device& device, std::string_view package, std::string_view activity,
                Deadline deadline, std::error_code& error);

// `am force-stop PACKAGE`: ends the app's processes. An unknown package is no error (am says
// nothing). Errors also: invalid_argument (not a package name), command_failed (am printed an
// exception, for example without the permission on a locked-down build).
void stop_app(Device& device, std::string_view package, Deadline deadline = kDefaultDeadline);
void stop_app(Device& device, std::string_view package, Deadline deadline, std::error_code& error);

// The resumed activity, from `dumpsys activity activities` (every Android version's form: see
// services/foreground_parser.hpp), else from the window manager's focus (`dumpsys window
// windows`: mFocusedApp, mCurrentFocus) when the first names none or fails. Errors also:
// not_found when neither reports one (the screen is off or locked, a system window has the
// focus, or the device hides both). The error_code overload returns an empty
// ForegroundActivity on error.
ForegroundActivity foreground_activity(Device& device, Deadline deadline = kDefaultDeadline);
ForegroundActivity foreground_activity(Device& device, Deadline deadline, std::error_code& error);

// Which installed packages list_packages names: pm's -s (those of the system image) and -3
// (those the user installed).
enum class PackageKind { all, system, third_party };

// The installed packages (`pm list packages`, with -s or -3 for a kind), sorted by name. The
// error_code overloads return an empty list on error.
std::vector<std::string> list_packages(Device& device, Deadline deadline = kDefaultDeadline);
std::vector<std::string> list_packages(Device& device, Deadline deadline, std::error_code& error);
std::vector<std::string> list_packages(Device& device, PackageKind kind,
                                       Deadline deadline = kDefaultDeadline);
std::vector<std::string> list_packages(Device& device, PackageKind kind, Deadline deadline,
                                       std::error_code& error);

}  // namespace adbwire
