// list_webviews (include/adbwire/webview.hpp): the DevTools sockets, then each one's pages.
#include "adbwire/webview.hpp"

#include "adbwire/error.hpp"
#include "agent/web/devtools_client.hpp"
#include "connection/device_access.hpp"

namespace adbwire {

std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline) {
  std::vector<WebViewPage> pages;
  for (const agent::web::DevtoolsSocket& socket :
       agent::web::find_devtools_sockets(device, deadline)) {
    try {
      // One budget per socket: a default deadline would restart at every read of its stream.
      const Deadline socket_deadline = detail::DeviceAccess::resolve(device, deadline);
      for (WebViewPage& page : agent::web::list_pages(device, socket, socket_deadline)) {
        pages.push_back(std::move(page));
      }
    } catch (const Error& e) {
      // A socket that vanished or is no DevTools endpoint is skipped; a lost device is not.
      if (e.code() == errc::device_offline || e.code() == errc::closed) throw;
    }
  }
  return pages;
}

std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline, std::error_code& error) {
  error.clear();
  try {
    return list_webviews(device, deadline);
  } catch (const Error& e) {
    error = e.code();
    return {};
  }
}

}  // namespace adbwire
