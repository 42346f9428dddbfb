// How much of a device's output adbwire holds in memory when a call gathers it whole. A device
// decides how much it prints: one whose `uiautomator dump`, `getprop` or `pm list packages` never
// ends would otherwise grow the host's memory until it runs out. Each kind of output has a bound
// suited to what it reads, about a hundred times what a real phone prints; past it the call fails
// with errc::limit_exceeded naming the bound (this struct's field), the stream is closed, and the
// connection stays usable. Streaming calls (Device::exec with an OutputHandler, pulls, ShellStream)
// hold no output and take no bound here.
#pragma once

#include <cstddef>
#include <string_view>

namespace adbwire {

struct OutputLimits {
  // Device::shell and Device::exec when they return the output whole (stdout and stderr
  // together), Stream::read_all, and the short commands library calls run and read (am,
  // settings, wm, date, input, the answers of root:, reboot:, install …).
  std::size_t command = 16 * 1024 * 1024;
  // One screen's uiautomator XML (Page::snapshot, page_source, the on-device dumper's answer):
  // real screens are 10 to 200 KB.
  std::size_t ui_dump = 32 * 1024 * 1024;
  // getprop's whole list (getprops): a phone prints 30 to 60 KB.
  std::size_t properties = 4 * 1024 * 1024;
  // `pm list packages` (list_packages, Page::packages, the apps verb): under 100 KB on a phone
  // with hundreds of apps.
  std::size_t packages = 8 * 1024 * 1024;
  // A dumpsys report a call parses (foreground_activity): a few MB on a busy phone.
  std::size_t dumpsys = 32 * 1024 * 1024;
  // `logcat -d` (Logcat in dump mode, the logs verb): the bytes read until the dump ends; a
  // phone's log buffers hold a few MB.
  std::size_t logcat = 64 * 1024 * 1024;
  // One screenshot (screencap_raw, screenshot, framebuffer): raw pixels are width x height x 4,
  // 33 MB at 3840 x 2160.
  std::size_t screenshot = 128 * 1024 * 1024;
};

// The kinds, by the names of OutputLimits' fields: "command", "ui_dump", "properties",
// "packages", "dumpsys", "logcat", "screenshot". The field of `name`, or nullptr for another
// name. For options that raise a bound by name (the CLI's --max-output KIND=BYTES).
std::size_t* output_limit(OutputLimits& limits, std::string_view name) noexcept;

// Every kind's name, in the order above, separated by ", " (for messages).
std::string_view output_limit_names() noexcept;

}  // namespace adbwire
