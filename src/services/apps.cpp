// launch_app, stop_app, foreground_activity, list_packages (include/adbwire/apps.hpp).
#include "adbwire/apps.hpp"

#include <algorithm>
#include <cctype>

#include "base/failure.hpp"
#include "services/device_command.hpp"
#include "services/foreground_parser.hpp"
#include "services/package_list.hpp"

namespace adbwire {
namespace {

// Letters, digits, '.', '_' and extra: the characters of package (and, with '$', class) names,
// none of which the shell interprets.
bool valid_name(std::string_view name, std::string_view extra) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
           extra.find(c) != std::string_view::npos;
  });
}

void launch(Device& device, std::string_view package, std::string_view activity, Deadline deadline,
            detail::Failure& failure) {
  if (!valid_name(package, "") || (!activity.empty() && !valid_name(activity, "$"))) {
    failure.set(errc::invalid_argument, "'" + std::string(package) + (activity.empty() ? "" : "/") +
                                            std::string(activity) +
                                            "' is not a package/activity name");
    return;
  }
  const std::string pkg(package);
  // Quoted although checked: a nested class's activity holds '$' (".Outer$Inner"), which the
  // device's shell would otherwise expand.
  const std::string command =
      activity.empty()
          ? "monkey -p " + detail::shell_quote(pkg) + " -c android.intent.category.LAUNCHER 1"
          : "am start -n " + detail::shell_quote(pkg + "/" + std::string(activity));
  std::error_code error;
  const ShellResult result = device.shell(command, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return;
  }
  // monkey and am report these as text, often with exit status 0.
  const std::string all = result.out + result.err;
  if (all.find("No activities found") != std::string::npos ||
      all.find("does not exist") != std::string::npos ||
      all.find("unable to resolve Intent") != std::string::npos) {
    failure.set(errc::not_found,
                "cannot launch " + pkg + ": " + detail::quote_output(all) +
                    " (is it installed? the apps verb, `adbwire apps`, lists what is)");
    return;
  }
  if (result.exit_code > 0 || all.find("Error") != std::string::npos)
    failure.set(errc::command_failed, "launching " + pkg + " failed: " + detail::quote_output(all));
}

std::string start(Device& device, const Intent& intent, Deadline deadline,
                  detail::Failure& failure) {
  if (intent.action.empty() && intent.data.empty() && intent.component.empty()) {
    failure.set(errc::invalid_argument,
                "an intent needs an action, data (a URI) or a component to start");
    return {};
  }
  std::string command = "am start -W";
  const auto option = [&command](std::string_view flag, const std::string& value) {
    if (!value.empty()) command += " " + std::string(flag) + " " + detail::shell_quote(value);
  };
  option("-a", intent.action);
  option("-d", intent.data);
  option("-t", intent.mime_type);
  option("-p", intent.package);
  option("-n", intent.component);
  for (const std::string& category : intent.categories) option("-c", category);
  for (const auto& [key, value] : intent.extras)
    command += " --es " + detail::shell_quote(key) + " " + detail::shell_quote(value);
  std::error_code error;
  const ShellResult result = device.shell(command, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  const std::string all = result.out + result.err;
  if (all.find("unable to resolve Intent") != std::string::npos ||
      all.find("does not exist") != std::string::npos) {
    failure.set(errc::not_found, "no activity takes this intent: " + detail::quote_output(all));
    return {};
  }
  if (result.exit_code > 0 || all.find("Error") != std::string::npos ||
      all.find("Exception") != std::string::npos) {
    failure.set(errc::command_failed, "am start failed: " + detail::quote_output(all));
    return {};
  }
  // "Activity: com.android.chrome/com.google.android.apps.chrome.Main" (am start -W).
  const std::size_t at = all.find("Activity: ");
  if (at == std::string::npos) return {};
  const std::size_t end = all.find_first_of("\r\n", at);
  return detail::trim(all.substr(at + 10, end == std::string::npos ? end : end - at - 10));
}

void stop(Device& device, std::string_view package, Deadline deadline, detail::Failure& failure) {
  if (!valid_name(package, "")) {
    failure.set(errc::invalid_argument, "'" + std::string(package) + "' is not a package name");
    return;
  }
  detail::run_command(device, "am force-stop " + detail::shell_quote(package), deadline,
                      detail::OutputCheck::exit_status_and_text, failure);
}

ForegroundActivity foreground(Device& device, Deadline deadline, detail::Failure& failure) {
  // The activity manager first; a device that hides it from the shell, or names no resumed
  // activity there, may still tell the window manager's focus.
  std::string refused;
  for (const char* command : {"dumpsys activity activities", "dumpsys window windows"}) {
    detail::Failure attempt;
    const std::string out =
        detail::run_command(device, command, deadline, detail::OutputCheck::exit_status, attempt,
                            &OutputLimits::dumpsys);
    if (attempt && attempt.code != errc::command_failed) {
      failure = std::move(attempt);
      return {};
    }
    if (attempt) {
      refused += (refused.empty() ? " (" : "; ") + attempt.detail;
      continue;
    }
    if (std::optional<ForegroundActivity> found = detail::parse_foreground_activity(out))
      return std::move(*found);
  }
  failure.set(errc::not_found,
              "neither the activity manager nor the window manager reports a foreground activity" +
                  (refused.empty() ? std::string() : refused + ")") +
                  " (is the screen off or locked?)");
  return {};
}

std::vector<std::string> packages(Device& device, PackageKind kind, Deadline deadline,
                                  detail::Failure& failure) {
  const char* command = kind == PackageKind::system        ? "pm list packages -s"
                        : kind == PackageKind::third_party ? "pm list packages -3"
                                                           : "pm list packages";
  const std::string out =
      detail::run_command(device, command, deadline, detail::OutputCheck::exit_status, failure,
                          &OutputLimits::packages);
  if (failure) return {};
  std::vector<std::string> names = detail::parse_package_list(out);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void launch_app(Device& device, std::string_view package, std::string_view activity,
                Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { launch(device, package, activity, deadline, f); });
}
void launch_app(Device& device, std::string_view package, std::string_view activity,
                Deadline deadline, std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { launch(device, package, activity, deadline, f); });
}

void stop_app(Device& device, std::string_view package, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { stop(device, package, deadline, f); });
}
void stop_app(Device& device, std::string_view package, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { stop(device, package, deadline, f); });
}

ForegroundActivity foreground_activity(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return foreground(device, deadline, f); });
}
ForegroundActivity foreground_activity(Device& device, Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return foreground(device, deadline, f); });
}

std::vector<std::string> list_packages(Device& device, Deadline deadline) {
  return list_packages(device, PackageKind::all, deadline);
}
std::vector<std::string> list_packages(Device& device, Deadline deadline, std::error_code& error) {
  return list_packages(device, PackageKind::all, deadline, error);
}
std::vector<std::string> list_packages(Device& device, PackageKind kind, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return packages(device, kind, deadline, f); });
}
std::vector<std::string> list_packages(Device& device, PackageKind kind, Deadline deadline,
                                       std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return packages(device, kind, deadline, f); });
}

Intent view_intent(std::string_view url) {
  Intent intent;
  intent.action = "android.intent.action.VIEW";
  intent.data = std::string(url);
  return intent;
}

std::string start_intent(Device& device, const Intent& intent, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return start(device, intent, deadline, f); });
}

std::string start_intent(Device& device, const Intent& intent, Deadline deadline,
                         std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return start(device, intent, deadline, f); });
}

}  // namespace adbwire
