// The screen as the system shows it: its rotation, waking it (and a keyguard without a PIN),
// the notification shade. Each call is one shell command; none reads the UI.
//
// Errors common to every call: those of Device::shell (timeout, device_offline, closed,
// protocol_error), and command_failed when a tool exits non-zero or prints an exception (the
// message names the command and quotes its output). The error_code overloads leave the message
// in last_error_detail() (error_detail.hpp).
//
// Thread safety: as Device; the calls keep no state.
#pragma once

#include <system_error>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// Screen orientation as Settings.System.USER_ROTATION numbers it.
enum class Orientation { portrait = 0, landscape = 1, reverse_portrait = 2, reverse_landscape = 3 };

// Locks the rotation at orientation: accelerometer_rotation off, then user_rotation set (both in
// Settings.System, so it needs `settings`: Android 4.2, API 17).
void lock_rotation(Device& device, Orientation orientation, Deadline deadline = kDefaultDeadline);
void lock_rotation(Device& device, Orientation orientation, Deadline deadline,
                   std::error_code& error);

// How wake_screen() dismisses a keyguard that has no PIN, pattern or password (a secure one
// stays: a person has to unlock it).
enum class KeyguardDismissal {
  command,   // `wm dismiss-keyguard` (Android 8.0, API 26+)
  menu_key,  // KEYCODE_MENU, which dismisses a swipe keyguard on older devices
};

// KEYCODE_WAKEUP (which leaves an awake screen as it is), then dismissal.
void wake_screen(Device& device, KeyguardDismissal dismissal, Deadline deadline = kDefaultDeadline);
void wake_screen(Device& device, KeyguardDismissal dismissal, Deadline deadline,
                 std::error_code& error);

// Pulls the notification shade down (`cmd statusbar expand-notifications`; `cmd` came with
// Android 7.0).
void open_notifications(Device& device, Deadline deadline = kDefaultDeadline);
void open_notifications(Device& device, Deadline deadline, std::error_code& error);

}  // namespace adbwire
