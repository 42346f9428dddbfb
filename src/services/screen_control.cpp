// lock_rotation, wake_screen, open_notifications (include/adbwire/screen_control.hpp).
#include "adbwire/screen_control.hpp"

#include <string>

#include "base/failure.hpp"
#include "base/keycodes.hpp"
#include "services/device_command.hpp"

namespace adbwire {
namespace {

void run(Device& device, const std::string& command, Deadline deadline, detail::Failure& failure) {
  detail::run_command(device, command, deadline, detail::OutputCheck::exit_status_and_text,
                      failure);
}

std::string rotation_command(Orientation orientation) {
  return "settings put system accelerometer_rotation 0 && settings put system user_rotation " +
         std::to_string(static_cast<int>(orientation));
}

std::string wake_command(KeyguardDismissal dismissal) {
  const std::string wake = "input keyevent " + std::to_string(keycodes::kWakeup);
  return dismissal == KeyguardDismissal::command
             ? wake + " && wm dismiss-keyguard"
             : wake + " && input keyevent " + std::to_string(keycodes::kMenu);
}

constexpr std::string_view kExpandNotifications = "cmd statusbar expand-notifications";

}  // namespace

void lock_rotation(Device& device, Orientation orientation, Deadline deadline) {
  detail::or_throw(
      [&](detail::Failure& f) { run(device, rotation_command(orientation), deadline, f); });
}
void lock_rotation(Device& device, Orientation orientation, Deadline deadline,
                   std::error_code& error) {
  detail::or_code(
      error, [&](detail::Failure& f) { run(device, rotation_command(orientation), deadline, f); });
}

void wake_screen(Device& device, KeyguardDismissal dismissal, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { run(device, wake_command(dismissal), deadline, f); });
}
void wake_screen(Device& device, KeyguardDismissal dismissal, Deadline deadline,
                 std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { run(device, wake_command(dismissal), deadline, f); });
}

void open_notifications(Device& device, Deadline deadline) {
  detail::or_throw(
      [&](detail::Failure& f) { run(device, std::string(kExpandNotifications), deadline, f); });
}
void open_notifications(Device& device, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) {
    run(device, std::string(kExpandNotifications), deadline, f);
  });
}

}  // namespace adbwire
