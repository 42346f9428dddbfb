// Debuggable WebViews and browsers on a device, reached over the Chrome DevTools Protocol
// through ADB itself: each DevTools socket (`@webview_devtools_remote_<pid>`,
// `@chrome_devtools_remote`, `@<package>_devtools_remote` in /proc/net/unix) is opened as a
// `localabstract:` stream, and HTTP (/json/list) and WebSocket (CDP) run inside that stream.
// No `adb forward`, no local port.
//
// A WebView is debuggable in debug builds of an app, when the app calls
// WebView.setWebContentsDebuggingEnabled(true), and in Chrome. Page::snapshot() uses this to
// show a WebView's content (see PageOptions::web); list_webviews() is the inventory.
//
// Thread safety: the functions use the Device from the calling thread; see Device.
#pragma once

#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

// One DevTools target (a page of a WebView or a browser tab) on a device.
struct WebViewPage {
  std::string socket;     // abstract socket name without '@', e.g. "webview_devtools_remote_4321"
  std::uint32_t pid = 0;  // of the app owning the socket; 0 when the name carries none
  std::string package;    // the app ("com.android.chrome" for chrome_devtools_remote)
  std::string id;         // DevTools target id
  std::string type;       // "page", "iframe", "service_worker", …
  std::string url;
  std::string title;
  // From the WebView's own description in /json/list (absent for browser tabs): whether it
  // is attached to a window and visible, and where it is on the screen, in pixels.
  bool visible = false;
  bool has_screen_rect = false;
  std::int32_t screen_x = 0, screen_y = 0, width = 0, height = 0;
};

// Every DevTools target on the device, socket by socket. A socket that does not answer (an
// app that exited since /proc/net/unix was read, a socket that is not DevTools) is skipped.
// Errors: the Device errors of reading /proc/net/unix, and device_offline or closed when the
// connection is lost while reading a socket; an empty list is no error. The error_code overload
// leaves the message in last_error_detail() (error_detail.hpp).
std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline = kDefaultDeadline);
std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline, std::error_code& error);

}  // namespace adbwire
