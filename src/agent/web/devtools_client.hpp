// The Chrome DevTools Protocol over ADB streams: the DevTools sockets of /proc/net/unix, the
// HTTP target list of one socket, and a CDP session (WebSocket) with one page. HTTP and
// WebSocket framing are Boost.Beast's, running over an adbwire::Stream (devtools_client.cpp
// adapts it); nothing here opens a local port. Internal to the library.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/webview.hpp"
#include "base/failure.hpp"

namespace adbwire::agent::web {

using Json = nlohmann::json;

// A DevTools socket found in /proc/net/unix.
struct DevtoolsSocket {
  std::string name;       // without the '@'
  std::uint32_t pid = 0;  // 0 when the name carries none
  std::string package;    // from the name, or /proc/PID/cmdline
};

// The abstract sockets of /proc/net/unix text that are DevTools sockets, with the pid the
// name carries ("webview_devtools_remote_4321") or the package it names ("chrome_…" is
// com.android.chrome, "<package>_devtools_remote" that package). Pure: no device access.
std::vector<DevtoolsSocket> parse_devtools_sockets(std::string_view proc_net_unix);

// /proc/net/unix read from the device, then each pid's package from /proc/PID/cmdline.
// Errors: the Device errors.
std::vector<DevtoolsSocket> find_devtools_sockets(Device& device, Deadline deadline,
                                                  detail::Failure& failure);

// GET /json/list on the socket. Errors: not_found (the device refused the socket: it is gone),
// protocol_error (no HTTP answer, or not the JSON list DevTools sends: the message quotes it),
// timeout, and the Device errors.
std::vector<WebViewPage> list_pages(Device& device, const DevtoolsSocket& socket, Deadline deadline,
                                    detail::Failure& failure);

// One CDP session with one page, over one WebSocket inside one ADB stream. Not thread safe.
class CdpSession {
 public:
  // Opens the socket and does the WebSocket handshake to /devtools/page/<page_id>. Errors:
  // not_found (socket gone), protocol_error (the handshake failed or the stream closed during
  // it: the message names the socket), timeout, and the Device errors. On failure the session
  // is empty: its calls fail with closed.
  static CdpSession connect(Device& device, const std::string& socket, const std::string& page_id,
                            Deadline deadline, detail::Failure& failure);

  CdpSession(CdpSession&&) noexcept;
  CdpSession& operator=(CdpSession&&) noexcept;
  ~CdpSession();

  // Sends {id, method, params} and returns the reply's "result", skipping the events that
  // come in between. Errors: command_failed (the page answered with a CDP error: the message
  // has it), protocol_error (a reply that is not JSON, or the socket closed), timeout. Returns
  // null on failure.
  Json call(std::string_view method, const Json& params, Deadline deadline,
            detail::Failure& failure);

 private:
  struct Impl;
  explicit CdpSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace adbwire::agent::web
