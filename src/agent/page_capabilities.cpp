// What a device can do, from one probe (Page::capabilities): API level, display size and input
// method in one shell command, the rest derived from them.
#include <cstdlib>

#include "agent/page_state.hpp"
#include "services/device_command.hpp"
#include "services/device_values.hpp"

namespace adbwire {
namespace {

constexpr std::string_view kAdbKeyboard = "com.android.adbkeyboard/";

// The probe's command: each tool's output after a marker line, so one exec reads all three.
constexpr std::string_view kProbeCommand =
    "echo @sdk; getprop ro.build.version.sdk; echo @size; wm size; echo @ime; settings get "
    "secure default_input_method";

// The probe's output split at its marker lines: sdk, wm size and input method sections.
Capabilities parse_probe(std::string_view out) {
  Capabilities caps;
  std::string section;
  std::string size_lines;
  while (!out.empty()) {
    const std::size_t end = out.find('\n');
    const std::string line = detail::trim(out.substr(0, end));
    out = end == std::string_view::npos ? std::string_view() : out.substr(end + 1);
    if (line.starts_with('@')) {
      section = line;
    } else if (section == "@sdk") {
      caps.sdk = static_cast<std::uint32_t>(std::strtoul(line.c_str(), nullptr, 10));
    } else if (section == "@size") {
      size_lines += line + "\n";
    } else if (section == "@ime" && line != "null") {
      caps.input_method = line;
    }
  }
  if (const auto size = detail::parse_display_size(size_lines))
    caps.screen_size = {size->width, size->height};
  return caps;
}

}  // namespace

std::string_view to_string(Capability c) noexcept {
  switch (c) {
    case Capability::snapshot:
      return "snapshot";
    case Capability::input:
      return "input";
    case Capability::unicode_text:
      return "unicode_text";
    case Capability::clipboard:
      return "clipboard";
    case Capability::drag_and_drop:
      return "drag_and_drop";
    case Capability::screenshot:
      return "screenshot";
    case Capability::install:
      return "install";
    case Capability::settings:
      return "settings";
    case Capability::notifications:
      return "notifications";
    case Capability::dismiss_keyguard:
      return "dismiss_keyguard";
    case Capability::multi_touch:
      return "multi_touch";
    case Capability::app_labels:
      return "app_labels";
  }
  return "unknown";
}

std::vector<std::string_view> Capabilities::names() const {
  std::vector<std::string_view> out;
  for (std::uint32_t i = 0; i <= static_cast<std::uint32_t>(Capability::app_labels); ++i) {
    if (has(static_cast<Capability>(i))) out.push_back(to_string(static_cast<Capability>(i)));
  }
  return out;
}

const Capabilities& Page::State::probe(Deadline deadline, detail::Failure& failure) {
  static const Capabilities kNone;
  if (capabilities) {
    refresh_helper_capabilities();
    return *capabilities;
  }
  std::error_code error;
  const ShellResult result = device.shell(kProbeCommand, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return kNone;
  }
  Capabilities caps = parse_probe(result.out);
  const bool modern = caps.sdk == 0 || caps.sdk >= 26;
  caps.set(Capability::snapshot);
  caps.set(Capability::input);
  caps.set(Capability::screenshot);
  caps.set(Capability::drag_and_drop, caps.sdk >= 31);
  caps.set(Capability::install, caps.sdk == 0 || caps.sdk >= 24);
  caps.set(Capability::settings, caps.sdk == 0 || caps.sdk >= 17);
  caps.set(Capability::notifications, modern);
  caps.set(Capability::dismiss_keyguard, modern);
  capabilities = std::move(caps);
  helper.check_input(deadline);
  refresh_helper_capabilities();
  return *capabilities;
}

void Page::State::refresh_helper_capabilities() {
  if (!capabilities) return;
  Capabilities& caps = *capabilities;
  // What the dumper serves changes when automatic mode gives it up, or when it cannot inject,
  // so these bits are set from its state on every read. The clipboard has no shell command on
  // stock Android; typing non-ASCII text works with it (set, then paste: KEYCODE_PASTE exists
  // from API 24) or with ADBKeyBoard.
  const bool clipboard = helper.usable();
  caps.set(Capability::clipboard, clipboard);
  caps.set(Capability::unicode_text, (clipboard && (caps.sdk == 0 || caps.sdk >= 24)) ||
                                         caps.input_method.starts_with(kAdbKeyboard));
  caps.set(Capability::multi_touch, helper.gestures_usable());
  caps.set(Capability::app_labels, clipboard);
}

void Page::State::require(Capability c, Deadline deadline, std::string_view what,
                          detail::Failure& failure) {
  const Capabilities& caps = probe(deadline, failure);
  if (failure || caps.has(c)) return;
  failure.set(errc::not_supported, std::string(what) +
                                       " is not supported on this device (Android API " +
                                       std::to_string(caps.sdk) + ")");
}

const Capabilities* Page::State::capabilities_call(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("capabilities", {}, false, failure, [&](detail::Failure& f) {
    const Capabilities& caps = probe(d, f);
    return f ? nullptr : &caps;
  });
}

const Capabilities& Page::capabilities(Deadline deadline) {
  return *detail::or_throw(
      [&](detail::Failure& f) { return state_->capabilities_call(deadline, f); });
}
const Capabilities& Page::capabilities(Deadline deadline, std::error_code& error) {
  static const Capabilities kNone;
  const Capabilities* caps = detail::or_code(
      error, [&](detail::Failure& f) { return state_->capabilities_call(deadline, f); });
  return caps != nullptr ? *caps : kNone;
}

}  // namespace adbwire
