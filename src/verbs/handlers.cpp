// Each verb of the table (table.cpp) to its handler.
#include "verbs/handlers.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace adbwire::verbs {
namespace {

constexpr std::pair<std::string_view, Handler> kHandlers[] = {
    {"snapshot", handlers::snapshot},
    {"tap", handlers::tap},
    {"click_area", handlers::click_area},
    {"long_press", handlers::long_press},
    {"type", handlers::type},
    {"secrets", handlers::secrets},
    {"scroll", handlers::scroll},
    {"swipe", handlers::swipe},
    {"drag", handlers::drag},
    {"pinch", handlers::pinch},
    {"gesture", handlers::gesture},
    {"press", handlers::press},
    {"back", handlers::back},
    {"home", handlers::home},
    {"recent", handlers::recent},
    {"find", handlers::find},
    {"wait", handlers::wait},
    {"screenshot", handlers::screenshot},
    {"page_source", handlers::page_source},
    {"record_start", handlers::record_start},
    {"record_stop", handlers::record_stop},
    {"record_trajectory_start", handlers::record_trajectory_start},
    {"record_trajectory_stop", handlers::record_trajectory_stop},
    {"replay_trajectory", handlers::replay_trajectory},
    {"webviews", handlers::webviews},
    {"launch", handlers::launch},
    {"stop", handlers::stop},
    {"open_url", handlers::open_url},
    {"foreground", handlers::foreground},
    {"apps", handlers::apps},
    {"install", handlers::install},
    {"push", handlers::push},
    {"pull", handlers::pull},
    {"uninstall", handlers::uninstall},
    {"notifications", handlers::notifications},
    {"rotate", handlers::rotate},
    {"clipboard_get", handlers::clipboard_get},
    {"clipboard_set", handlers::clipboard_set},
    {"date", handlers::date},
    {"setting_get", handlers::setting_get},
    {"setting_put", handlers::setting_put},
    {"logs", handlers::logs},
    {"capabilities", handlers::capabilities},
    {"devices", handlers::devices},
    {"connect", handlers::connect},
    {"battery", handlers::battery},
    {"sensors", handlers::sensors},
    {"wifi", handlers::wifi},
    {"data", handlers::data},
    {"airplane", handlers::airplane},
    {"camera", handlers::camera},
    {"remember", handlers::remember},
    {"recall", handlers::recall},
    {"forget", handlers::forget},
    {"observations", handlers::observations},
    {"shell", handlers::shell},
    {"pair", handlers::pair},
};

constexpr auto kNames = [] {
  std::array<std::string_view, std::size(kHandlers)> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kHandlers[i].first;
  return names;
}();

}  // namespace

Handler handler_of(std::string_view name) noexcept {
  const auto* it = std::find_if(std::begin(kHandlers), std::end(kHandlers),
                                [name](const auto& entry) { return entry.first == name; });
  return it == std::end(kHandlers) ? nullptr : it->second;
}

std::span<const std::string_view> handled_verbs() noexcept { return kNames; }

}  // namespace adbwire::verbs
