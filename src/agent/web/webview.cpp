// list_webviews (include/adbwire/webview.hpp): the DevTools sockets, then each one's pages.
#include "adbwire/webview.hpp"

#include "adbwire/error.hpp"
#include "agent/web/devtools_client.hpp"
#include "base/failure.hpp"

namespace adbwire {
namespace {

std::vector<WebViewPage> all_pages(Device& device, Deadline deadline, detail::Failure& failure) {
  std::vector<WebViewPage> pages;
  const std::vector<agent::web::DevtoolsSocket> sockets =
      agent::web::find_devtools_sockets(device, deadline, failure);
  for (const agent::web::DevtoolsSocket& socket : sockets) {
    // One budget per socket: a default deadline would restart at every read of its stream.
    const Deadline socket_deadline = device.resolve(deadline);
    detail::Failure skipped;
    for (WebViewPage& page : agent::web::list_pages(device, socket, socket_deadline, skipped))
      pages.push_back(std::move(page));
    // A socket that vanished or is no DevTools endpoint is skipped; a lost device is not.
    if (skipped.code == errc::device_offline || skipped.code == errc::closed) {
      failure = std::move(skipped);
      return {};
    }
  }
  return pages;
}

}  // namespace

std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline) {
  return detail::or_throw([&](detail::Failure& f) { return all_pages(device, deadline, f); });
}

std::vector<WebViewPage> list_webviews(Device& device, Deadline deadline, std::error_code& error) {
  return detail::or_code(error, [&](detail::Failure& f) { return all_pages(device, deadline, f); });
}

}  // namespace adbwire
