#include "agent/web/web_click.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "agent/web/devtools_client.hpp"

namespace adbwire::agent::web {

void click_web_node(Device& device, std::string_view web_node, Deadline deadline,
                    detail::Failure& failure) {
  const std::size_t first = web_node.find('|');
  const std::size_t second =
      first == std::string_view::npos ? std::string_view::npos : web_node.find('|', first + 1);
  long long backend_id = 0;
  bool parsed = second != std::string_view::npos;
  if (parsed) {
    const std::string_view id_text = web_node.substr(second + 1);
    const auto [end, error] =
        std::from_chars(id_text.data(), id_text.data() + id_text.size(), backend_id);
    parsed = error == std::errc() && end == id_text.data() + id_text.size();
  }
  if (!parsed) {
    failure.set(errc::invalid_argument, "not a web element: " + std::string(web_node));
    return;
  }
  const std::string socket(web_node.substr(0, first));
  const std::string page_id(web_node.substr(first + 1, second - first - 1));
  CdpSession session = CdpSession::connect(device, socket, page_id, deadline, failure);
  if (failure) return;
  // Newer Chrome only: an older WebView that lacks it clicks where the element is.
  detail::Failure scrolled;
  session.call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", backend_id}}, deadline, scrolled);
  if (scrolled && scrolled.code != errc::command_failed) {
    failure = std::move(scrolled);
    return;
  }
  const Json box =
      session.call("DOM.getBoxModel", {{"backendNodeId", backend_id}}, deadline, failure);
  if (failure) return;
  const auto model = box.find("model");
  const Json* quad = nullptr;
  if (model != box.end() && model->is_object() && model->contains("content"))
    quad = &(*model)["content"];
  const bool usable =
      quad != nullptr && quad->is_array() && quad->size() >= 8 &&
      std::all_of(quad->begin(), quad->begin() + 8, [](const auto& v) { return v.is_number(); });
  if (!usable) {
    failure.set(errc::protocol_error, "DOM.getBoxModel gave no box: " + box.dump().substr(0, 200));
    return;
  }
  double x = 0, y = 0;
  for (std::size_t i = 0; i < 8; i += 2) {
    x += (*quad)[i].get<double>() / 4;
    y += (*quad)[i + 1].get<double>() / 4;
  }
  for (const char* type : {"mousePressed", "mouseReleased"}) {
    session.call("Input.dispatchMouseEvent",
                 {{"type", type}, {"x", x}, {"y", y}, {"button", "left"}, {"clickCount", 1}},
                 deadline, failure);
    if (failure) return;
  }
}

}  // namespace adbwire::agent::web
