// Android's settings provider (Settings.System, .Secure, .Global) through the `settings` shell
// tool (`cmd settings` since Android 4.2, API 17). Keys and values are shell-quoted, so any text
// is safe to pass.
//
// Errors common to both calls: those of Device::shell (timeout, device_offline, closed,
// protocol_error), and command_failed when `settings` refuses (the message quotes it: a
// protected key, a namespace the shell user may not write). The error_code overloads leave the
// message in last_error_detail() (error_detail.hpp).
//
// Thread safety: as Device; the calls keep no state.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

enum class SettingsNamespace { system, secure, global };

// "system", "secure" or "global".
std::string_view to_string(SettingsNamespace ns) noexcept;

// The value of key in ns; "" for an unset key (`settings get` prints "null"). The error_code
// overload returns "" on error.
std::string get_setting(Device& device, SettingsNamespace ns, std::string_view key,
                        Deadline deadline = kDefaultDeadline);
std::string get_setting(Device& device, SettingsNamespace ns, std::string_view key,
                        Deadline deadline, std::error_code& error);

// Sets key in ns to value.
void put_setting(Device& device, SettingsNamespace ns, std::string_view key, std::string_view value,
                 Deadline deadline = kDefaultDeadline);
void put_setting(Device& device, SettingsNamespace ns, std::string_view key, std::string_view value,
                 Deadline deadline, std::error_code& error);

}  // namespace adbwire
