// battery, sensors, radio_on, set_radio (include/adbwire/device_readings.hpp).
#include "adbwire/device_readings.hpp"

#include <thread>

#include "adbwire/settings.hpp"
#include "base/failure.hpp"
#include "services/device_command.hpp"
#include "services/device_readings_parser.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

// How long set_radio reads the state back: the system applies a switch asynchronously, Wi-Fi
// in about a second on a phone.
constexpr auto kSettleWait = 5s;
constexpr auto kSettlePoll = 200ms;

// The dump of one service; not_supported when the device has none ("Can't find service", which
// dumpsys prints with exit status 0).
std::string dump_of(Device& device, std::string_view service, Deadline deadline,
                    detail::Failure& failure) {
  const std::string out =
      detail::run_command(device, "dumpsys " + std::string(service), deadline,
                          detail::OutputCheck::exit_status, failure, &OutputLimits::dumpsys);
  if (failure) return {};
  if (out.size() < 200 && out.find("Can't find service") != std::string::npos) {
    failure.set(errc::not_supported, "this device has no " + std::string(service) +
                                         " service (dumpsys: " + detail::quote_output(out) + ")");
    return {};
  }
  return out;
}

BatteryState read_battery(Device& device, Deadline deadline, detail::Failure& failure) {
  const std::string out = dump_of(device, "battery", deadline, failure);
  if (failure) return {};
  std::optional<BatteryState> state = detail::parse_battery(out);
  if (!state) {
    failure.set(errc::parse_error, "`dumpsys battery` printed no level and no status: " +
                                       detail::quote_output(out.substr(0, 300)));
    return {};
  }
  return std::move(*state);
}

SensorList read_sensors(Device& device, Deadline deadline, detail::Failure& failure) {
  const std::string out = dump_of(device, "sensorservice", deadline, failure);
  if (failure) return {};
  std::optional<SensorList> list = detail::parse_sensors(out);
  if (!list) {
    failure.set(errc::parse_error, "`dumpsys sensorservice` printed no \"Sensor List:\": " +
                                       detail::quote_output(out.substr(0, 300)));
    return {};
  }
  return std::move(*list);
}

std::string_view setting_of(Radio radio) {
  switch (radio) {
    case Radio::wifi:
      return "wifi_on";
    case Radio::mobile_data:
      return "mobile_data";
    case Radio::airplane_mode:
      return "airplane_mode_on";
  }
  return "wifi_on";
}

bool read_radio(Device& device, Radio radio, Deadline deadline, detail::Failure& failure) {
  std::error_code error;
  const std::string value =
      get_setting(device, SettingsNamespace::global, setting_of(radio), deadline, error);
  if (error) {
    failure = detail::reported(error);
    return false;
  }
  // wifi_on: 1 on, 2 on and kept on through airplane mode, 0 and 3 off (WifiSettingsStore).
  if (radio == Radio::wifi) return value == "1" || value == "2";
  return value == "1";
}

// `cmd connectivity airplane-mode` (Android 11+); false when the device does not know it.
bool airplane_by_cmd(Device& device, bool on, Deadline deadline, detail::Failure& failure) {
  const std::string command =
      std::string("cmd connectivity airplane-mode ") + (on ? "enable" : "disable");
  std::error_code error;
  const ShellResult ran = device.shell(command + " 2>&1", deadline, error);
  if (error) {
    failure = detail::reported(error);
    return true;
  }
  const std::string& said = ran.out;
  if (ran.exit_code > 0 || said.find("Unknown command") != std::string::npos ||
      said.find("Can't find service") != std::string::npos ||
      said.find("not found") != std::string::npos) {
    return false;
  }
  if (said.find("Exception") != std::string::npos || said.find("Error:") != std::string::npos) {
    failure.set(errc::command_failed,
                "`" + command + "` failed on the device: " + detail::quote_output(said));
  }
  return true;
}

void switch_radio(Device& device, Radio radio, bool on, Deadline deadline,
                  detail::Failure& failure) {
  const bool now = read_radio(device, radio, deadline, failure);
  if (failure || now == on) return;
  const char* verb = on ? "enable" : "disable";
  std::string sent;
  if (radio == Radio::wifi || radio == Radio::mobile_data) {
    sent = std::string("svc ") + (radio == Radio::wifi ? "wifi " : "data ") + verb;
    detail::run_command(device, sent, deadline, detail::OutputCheck::exit_status_and_text, failure);
  } else if (airplane_by_cmd(device, on, deadline, failure)) {
    sent = std::string("cmd connectivity airplane-mode ") + verb;
  } else {
    // Before Android 11: the setting, then the broadcast that makes the radios follow it.
    sent = std::string("settings put global airplane_mode_on ") + (on ? "1" : "0") +
           " && am broadcast -a android.intent.action.AIRPLANE_MODE --ez state " +
           (on ? "true" : "false");
    detail::run_command(device, sent, deadline, detail::OutputCheck::exit_status_and_text, failure);
    if (failure && failure.code == errc::command_failed) {
      failure.detail +=
          "; Android 7 to 10 refuse this broadcast from the shell: switch airplane mode in the "
          "quick settings";
    }
  }
  if (failure) return;
  // The whole deadline when the caller gave one, else kSettleWait.
  const Clock::time_point sent_at = Clock::now();
  const Deadline settle = deadline == kDefaultDeadline ? deadline_after(kSettleWait) : deadline;
  while (true) {
    if (read_radio(device, radio, deadline, failure) == on || failure) return;
    if (Clock::now() + kSettlePoll >= settle) break;
    std::this_thread::sleep_for(kSettlePoll);
  }
  const auto waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - sent_at).count();
  failure.set(errc::command_failed,
              "the device took `" + sent + "` but " + std::string(to_string(radio)) + " is still " +
                  (on ? "off" : "on") + " after " + std::to_string(waited) + " ms (global " +
                  std::string(setting_of(radio)) + "): a device policy, the user's restrictions" +
                  (radio == Radio::mobile_data ? ", a missing SIM" : "") +
                  " or airplane mode may hold it");
}

}  // namespace

std::string_view to_string(BatteryStatus status) noexcept {
  switch (status) {
    case BatteryStatus::unknown:
      return "unknown";
    case BatteryStatus::charging:
      return "charging";
    case BatteryStatus::discharging:
      return "discharging";
    case BatteryStatus::not_charging:
      return "not charging";
    case BatteryStatus::full:
      return "full";
  }
  return "unknown";
}

std::string_view to_string(Radio radio) noexcept {
  switch (radio) {
    case Radio::wifi:
      return "Wi-Fi";
    case Radio::mobile_data:
      return "mobile data";
    case Radio::airplane_mode:
      return "airplane mode";
  }
  return "Wi-Fi";
}

BatteryState battery(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return read_battery(device, deadline, f); });
}
BatteryState battery(Device& device, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return read_battery(device, deadline, f); });
}

SensorList sensors(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return read_sensors(device, deadline, f); });
}
SensorList sensors(Device& device, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return read_sensors(device, deadline, f); });
}

bool radio_on(Device& device, Radio radio, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return read_radio(device, radio, deadline, f); });
}
bool radio_on(Device& device, Radio radio, Deadline deadline, std::error_code& error) {
  return detail::or_code(
      error, [&](detail::Failure& f) { return read_radio(device, radio, deadline, f); });
}

void set_radio(Device& device, Radio radio, bool on, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { switch_radio(device, radio, on, deadline, f); });
}
void set_radio(Device& device, Radio radio, bool on, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { switch_radio(device, radio, on, deadline, f); });
}

}  // namespace adbwire
