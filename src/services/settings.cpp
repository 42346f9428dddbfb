// get_setting, put_setting (include/adbwire/settings.hpp).
#include "adbwire/settings.hpp"

#include "base/failure.hpp"
#include "services/device_command.hpp"
#include "services/device_values.hpp"

namespace adbwire {
namespace {

std::string get(Device& device, SettingsNamespace ns, std::string_view key, Deadline deadline,
                detail::Failure& failure) {
  // A read judges the exit status only: a value may hold "Error:".
  const std::string out = detail::run_command(
      device, "settings get " + std::string(to_string(ns)) + " " + detail::shell_quote(key),
      deadline, detail::OutputCheck::exit_status, failure);
  return failure ? std::string() : detail::parse_setting_value(out);
}

void put(Device& device, SettingsNamespace ns, std::string_view key, std::string_view value,
         Deadline deadline, detail::Failure& failure) {
  detail::run_command(device,
                      "settings put " + std::string(to_string(ns)) + " " +
                          detail::shell_quote(key) + " " + detail::shell_quote(value),
                      deadline, detail::OutputCheck::exit_status_and_text, failure);
}

}  // namespace

std::string_view to_string(SettingsNamespace ns) noexcept {
  switch (ns) {
    case SettingsNamespace::system:
      return "system";
    case SettingsNamespace::secure:
      return "secure";
    case SettingsNamespace::global:
      return "global";
  }
  return "system";
}

std::string get_setting(Device& device, SettingsNamespace ns, std::string_view key,
                        Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return get(device, ns, key, deadline, f); });
}
std::string get_setting(Device& device, SettingsNamespace ns, std::string_view key,
                        Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return get(device, ns, key, deadline, f); });
}

void put_setting(Device& device, SettingsNamespace ns, std::string_view key, std::string_view value,
                 Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { put(device, ns, key, value, deadline, f); });
}
void put_setting(Device& device, SettingsNamespace ns, std::string_view key, std::string_view value,
                 Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { put(device, ns, key, value, deadline, f); });
}

}  // namespace adbwire
