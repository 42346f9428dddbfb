// Page's app and device calls: thin forwards to the device services (apps.hpp, install.hpp,
// settings.hpp, screen_control.hpp, device_state.hpp, screencap.hpp), with the capability checks,
// Page's deadline and the call record added; and the clipboard, which only the on-device dumper
// reaches.
#include "adbwire/device_state.hpp"
#include "adbwire/install.hpp"
#include "adbwire/screencap.hpp"
#include "agent/helper_protocol.hpp"
#include "agent/page_state.hpp"
#include "base/advice.hpp"

namespace adbwire {
namespace {

// A service's error_code overload as a step of a Page operation.
template <class Service>
auto forward(detail::Failure& failure, Service&& service) {
  std::error_code error;
  if constexpr (std::is_void_v<decltype(service(error))>) {
    service(error);
    if (error) failure = detail::reported(error);
  } else {
    auto result = service(error);
    if (error) failure = detail::reported(error);
    return result;
  }
}

void clipboard_unsupported(detail::Failure& failure) {
  failure.set(
      errc::not_supported,
      "Android has no shell command for the clipboard: adbwire reaches it through its on-device "
      "dumper, which is off for this Page (" +
          std::string(detail::advice("PageOptions::helper, CLI --helper auto",
                                     "PageOptions(helper=\"auto\")")) +
          ") or failed earlier (helper_status())");
}

}  // namespace

// ---- apps

void Page::State::launch(std::string_view package, std::string_view activity, Deadline deadline,
                         detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("launch", {{"package", std::string(package)}, {"activity", std::string(activity)}}, true,
       failure, [&](detail::Failure& f) {
         forward(f, [&](std::error_code& e) { launch_app(device, package, activity, d, e); });
       });
}

void Page::State::stop(std::string_view package, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("stop", {{"package", std::string(package)}}, true, failure, [&](detail::Failure& f) {
    forward(f, [&](std::error_code& e) { stop_app(device, package, d, e); });
  });
}

ForegroundActivity Page::State::foreground(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("foreground", {}, false, failure, [&](detail::Failure& f) {
    ForegroundActivity found =
        forward(f, [&](std::error_code& e) { return foreground_activity(device, d, e); });
    if (f.code != errc::not_found) return found;
    // Neither manager says: the screen's own package, activity unknown.
    detail::Failure reading;
    const ui::Snapshot now = read_current(false, d, reading);
    if (reading || now.app().package.empty()) return found;
    f = {};
    return ForegroundActivity{now.app().package, ""};
  });
}

std::vector<std::string> Page::State::packages(PackageKind kind, Deadline deadline,
                                               detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("packages", {}, false, failure, [&](detail::Failure& f) {
    return forward(f, [&](std::error_code& e) { return list_packages(device, kind, d, e); });
  });
}

std::map<std::string, std::string> Page::State::app_labels(Deadline deadline,
                                                           detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("app_labels", {}, false, failure,
              [&](detail::Failure& f) -> std::map<std::string, std::string> {
                if (!helper.usable()) {
                  f.set(errc::not_supported,
                        "app labels come from PackageManager, which no shell command reads: "
                        "adbwire reads them through its on-device dumper (" +
                            std::string(detail::advice("--helper auto, PageOptions::helper",
                                                       "PageOptions(helper=\"auto\")")) +
                            ")");
                  return {};
                }
                const std::string reply = helper.labels(d, f);
                if (f) return {};
                bool too_many = false;
                std::map<std::string, std::string> labels =
                    agent::helper::decode_labels(reply, too_many);
                if (too_many) {
                  f.set(errc::limit_exceeded,
                        "the device listed more than " + std::to_string(agent::helper::kMaxLabels) +
                            " apps with labels; a phone has hundreds, so its answer is not "
                            "trusted");
                  return {};
                }
                return labels;
              });
}

void Page::State::install(const std::filesystem::path& apk, Deadline deadline,
                          detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("install", {{"apk", apk.string()}}, true, failure, [&](detail::Failure& f) {
    forward(f, [&](std::error_code& e) { adbwire::install(device, {apk}, {}, {}, d, e); });
  });
}

void Page::State::uninstall(std::string_view package, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("uninstall", {{"package", std::string(package)}}, true, failure, [&](detail::Failure& f) {
    forward(f, [&](std::error_code& e) { adbwire::uninstall(device, package, false, d, e); });
  });
}

// ---- device

std::vector<std::uint8_t> Page::State::screenshot(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("screenshot", {}, false, failure, [&](detail::Failure& f) {
    EncodedImage image =
        forward(f, [&](std::error_code& e) { return adbwire::screenshot(device, {}, d, e); });
    if (!f) {
      shot_width = shot_screen_width = image.width;
      shot_height = shot_screen_height = image.height;
    }
    return std::move(image.bytes);
  });
}

void Page::State::clipboard_set(std::string_view text, Deadline deadline,
                                detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("clipboard_set", {{"text", std::string(text)}}, false, failure, [&](detail::Failure& f) {
    if (!helper.usable()) return clipboard_unsupported(f);
    helper.set_clipboard(text, d, f);
  });
}

std::string Page::State::clipboard_get(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("clipboard_get", {}, false, failure, [&](detail::Failure& f) -> std::string {
    if (!helper.usable()) {
      clipboard_unsupported(f);
      return {};
    }
    return helper.get_clipboard(d, f);
  });
}

void Page::State::rotate(Orientation orientation, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("rotate", {{"orientation", std::to_string(static_cast<int>(orientation))}}, true, failure,
       [&](detail::Failure& f) {
         require(Capability::settings, d, "settings", f);
         if (f) return;
         forward(f, [&](std::error_code& e) { lock_rotation(device, orientation, d, e); });
       });
}

void Page::State::wake(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("wake", {}, true, failure, [&](detail::Failure& f) {
    const Capabilities& caps = probe(d, f);
    if (f) return;
    const KeyguardDismissal dismissal = caps.has(Capability::dismiss_keyguard)
                                            ? KeyguardDismissal::command
                                            : KeyguardDismissal::menu_key;
    forward(f, [&](std::error_code& e) { wake_screen(device, dismissal, d, e); });
  });
}

void Page::State::open_notifications(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("open_notifications", {}, true, failure, [&](detail::Failure& f) {
    require(Capability::notifications, d, "opening the notification shade (cmd statusbar)", f);
    if (f) return;
    forward(f, [&](std::error_code& e) { adbwire::open_notifications(device, d, e); });
  });
}

std::chrono::system_clock::time_point Page::State::device_time(Deadline deadline,
                                                               detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("device_time", {}, false, failure, [&](detail::Failure& f) {
    return forward(f, [&](std::error_code& e) { return adbwire::device_time(device, d, e); });
  });
}

std::string Page::State::setting(SettingsNamespace ns, std::string_view key, Deadline deadline,
                                 detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("setting", {{"namespace", std::string(to_string(ns))}, {"key", std::string(key)}},
              false, failure, [&](detail::Failure& f) -> std::string {
                require(Capability::settings, d, "settings", f);
                if (f) return {};
                return forward(
                    f, [&](std::error_code& e) { return get_setting(device, ns, key, d, e); });
              });
}

void Page::State::put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                              Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("put_setting",
       {{"namespace", std::string(to_string(ns))},
        {"key", std::string(key)},
        {"value", std::string(value)}},
       true, failure, [&](detail::Failure& f) {
         require(Capability::settings, d, "settings", f);
         if (f) return;
         forward(f,
                 [&](std::error_code& e) { adbwire::put_setting(device, ns, key, value, d, e); });
       });
}

// ---- the public overloads

void Page::launch(std::string_view package, std::string_view activity, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->launch(package, activity, deadline, f); });
}
void Page::launch(std::string_view package, std::string_view activity, Deadline deadline,
                  std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { state_->launch(package, activity, deadline, f); });
}

void Page::stop(std::string_view package, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->stop(package, deadline, f); });
}
void Page::stop(std::string_view package, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->stop(package, deadline, f); });
}

ForegroundActivity Page::foreground(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->foreground(deadline, f); });
}
ForegroundActivity Page::foreground(Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->foreground(deadline, f); });
}

std::vector<std::string> Page::packages(Deadline deadline) {
  return packages(PackageKind::all, deadline);
}
std::vector<std::string> Page::packages(Deadline deadline, std::error_code& error) {
  return packages(PackageKind::all, deadline, error);
}
std::vector<std::string> Page::packages(PackageKind kind, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->packages(kind, deadline, f); });
}
std::vector<std::string> Page::packages(PackageKind kind, Deadline deadline,
                                        std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->packages(kind, deadline, f); });
}

std::map<std::string, std::string> Page::app_labels(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->app_labels(deadline, f); });
}
std::map<std::string, std::string> Page::app_labels(Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->app_labels(deadline, f); });
}

void Page::install(const std::filesystem::path& apk, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->install(apk, deadline, f); });
}
void Page::install(const std::filesystem::path& apk, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->install(apk, deadline, f); });
}

void Page::uninstall(std::string_view package, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->uninstall(package, deadline, f); });
}
void Page::uninstall(std::string_view package, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->uninstall(package, deadline, f); });
}

std::vector<std::uint8_t> Page::screenshot(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->screenshot(deadline, f); });
}
std::vector<std::uint8_t> Page::screenshot(Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->screenshot(deadline, f); });
}

void Page::clipboard_set(std::string_view text, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->clipboard_set(text, deadline, f); });
}
void Page::clipboard_set(std::string_view text, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->clipboard_set(text, deadline, f); });
}

std::string Page::clipboard_get(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->clipboard_get(deadline, f); });
}
std::string Page::clipboard_get(Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->clipboard_get(deadline, f); });
}

void Page::rotate(Orientation orientation, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->rotate(orientation, deadline, f); });
}
void Page::rotate(Orientation orientation, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->rotate(orientation, deadline, f); });
}

void Page::wake(Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->wake(deadline, f); });
}
void Page::wake(Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->wake(deadline, f); });
}

void Page::open_notifications(Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->open_notifications(deadline, f); });
}
void Page::open_notifications(Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->open_notifications(deadline, f); });
}

std::chrono::system_clock::time_point Page::device_time(Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return state_->device_time(deadline, f); });
}
std::chrono::system_clock::time_point Page::device_time(Deadline deadline, std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->device_time(deadline, f); });
}

std::string Page::setting(SettingsNamespace ns, std::string_view key, Deadline deadline) {
  return detail::or_throw(
      [&](detail::Failure& f) { return state_->setting(ns, key, deadline, f); });
}
std::string Page::setting(SettingsNamespace ns, std::string_view key, Deadline deadline,
                          std::error_code& error) {
  return detail::or_code(error,
                         [&](detail::Failure& f) { return state_->setting(ns, key, deadline, f); });
}

void Page::put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                       Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->put_setting(ns, key, value, deadline, f); });
}
void Page::put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                       Deadline deadline, std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { state_->put_setting(ns, key, value, deadline, f); });
}

}  // namespace adbwire
