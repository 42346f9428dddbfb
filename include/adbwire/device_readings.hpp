// What the device's hardware reports and the radios it switches: the battery (`dumpsys
// battery`), the sensors (`dumpsys sensorservice`), and Wi-Fi, mobile data and airplane mode
// (`svc`, `cmd connectivity`, `settings`). A device's words are untrusted: each dump is read
// within OutputLimits::dumpsys, names are cut and kept as bytes (escape them before a terminal
// shows them: protocol::printable), and a sensor list holds at most kMaxSensors entries.
//
// Errors common to every call: those of Device::shell (timeout, device_offline, closed,
// protocol_error), limit_exceeded past the dump's bound. The error_code overloads leave the
// message in last_error_detail() (error_detail.hpp).
//
// Thread safety: as Device; the calls keep no state.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// BatteryManager's BATTERY_STATUS_* values.
enum class BatteryStatus { unknown, charging, discharging, not_charging, full };
// "unknown", "charging", "discharging", "not charging", "full".
std::string_view to_string(BatteryStatus status) noexcept;

struct BatteryState {
  std::optional<int> level;  // percent 0..100 (level / scale), when the dump gave one
  BatteryStatus status = BatteryStatus::unknown;
  std::optional<double> temperature_c;  // degrees Celsius (the dump gives tenths)
  std::optional<int> voltage_mv;
  // What powers it: "AC", "USB", "wireless", "dock", several joined by "+", or "" (none).
  std::string plugged;
  std::string technology;  // "Li-ion", as the device names it (at most 64 bytes)
};

// The battery as `dumpsys battery` reports it. Errors: not_supported when the device has no
// battery service (an emulator or a TV without one says "Can't find service"); parse_error
// quoting the dump when it holds no level and no status line.
BatteryState battery(Device& device, Deadline deadline = kDefaultDeadline);
BatteryState battery(Device& device, Deadline deadline, std::error_code& error);

struct Sensor {
  std::string name;    // "BMI160 accelerometer" (at most 128 bytes)
  std::string vendor;  // "Bosch" (at most 128 bytes)
  // The type's string, "android.sensor.accelerometer", or a vendor's own type string.
  std::string type;
  std::optional<int> type_id;  // Sensor.TYPE_* (1 accelerometer …), when printed
  std::optional<int> version;
};

struct SensorList {
  std::vector<Sensor> sensors;
  std::size_t left_out = 0;  // entries past kMaxSensors, counted but not kept
};

// Sensors a list keeps: real phones have 20 to 60.
inline constexpr std::size_t kMaxSensors = 512;

// The sensors of `dumpsys sensorservice`'s "Sensor List:" section, in the forms of Android 4.4
// to 15 ("0x0000000b) NAME | VENDOR | ver: 1 | type: android.sensor.accelerometer(1) | …" and
// the older "NAME | VENDOR | version=1 | android.sensor.accelerometer | …"). Errors:
// not_supported without the service; parse_error when the dump has no sensor list.
SensorList sensors(Device& device, Deadline deadline = kDefaultDeadline);
SensorList sensors(Device& device, Deadline deadline, std::error_code& error);

enum class Radio { wifi, mobile_data, airplane_mode };
// "Wi-Fi", "mobile data", "airplane mode".
std::string_view to_string(Radio radio) noexcept;

// Whether the radio is on now, from the global setting the system keeps for it (wifi_on,
// mobile_data, airplane_mode_on). Errors: command_failed when `settings` fails.
bool radio_on(Device& device, Radio radio, Deadline deadline = kDefaultDeadline);
bool radio_on(Device& device, Radio radio, Deadline deadline, std::error_code& error);

// Turns the radio on or off and reads it back (radio_on) until it shows the new state, until
// deadline (5 s with kDefaultDeadline). Wi-Fi: `svc wifi enable|disable`; mobile data: `svc data
// enable|disable`; airplane mode: `cmd connectivity airplane-mode enable|disable` (Android 11+),
// else `settings put global airplane_mode_on` and the AIRPLANE_MODE broadcast (older devices;
// Android 7+ refuses that broadcast from the shell, which the read-back then shows). Already in
// that state: nothing is sent. Errors: command_failed when the tool refused (quoting it) or
// when the device took the command but the state did not change (a device policy, a phone
// without a SIM for mobile data): the message says which.
void set_radio(Device& device, Radio radio, bool on, Deadline deadline = kDefaultDeadline);
void set_radio(Device& device, Radio radio, bool on, Deadline deadline, std::error_code& error);

}  // namespace adbwire
