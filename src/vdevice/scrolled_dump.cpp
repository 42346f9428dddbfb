#include "vdevice/scrolled_dump.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ui/bounds.hpp"

namespace adbwire::vdevice {
namespace {

std::string bounds_text(const ui::Bounds& b) {
  return "[" + std::to_string(b.left) + "," + std::to_string(b.top) + "][" +
         std::to_string(b.right) + "," + std::to_string(b.bottom) + "]";
}

ui::Bounds cut(const ui::Bounds& b, const ui::Bounds& window) {
  return {std::max(b.left, window.left), std::max(b.top, window.top),
          std::min(b.right, window.right), std::min(b.bottom, window.bottom)};
}

}  // namespace

void scroll_content(pugi::xml_node scrollable, std::int32_t dx, std::int32_t dy) {
  const std::optional<ui::Bounds> viewport =
      ui::parse_bounds(scrollable.attribute("bounds").value());
  if (!viewport) return;
  // Depth first without recursion: each child with the visible part of its parent.
  std::vector<std::pair<pugi::xml_node, ui::Bounds>> pending;
  for (pugi::xml_node child : scrollable.children("node")) pending.emplace_back(child, *viewport);
  while (!pending.empty()) {
    const auto [node, window] = pending.back();
    pending.pop_back();
    pugi::xml_attribute attribute = node.attribute("bounds");
    ui::Bounds shown = window;
    if (const std::optional<ui::Bounds> old = ui::parse_bounds(attribute.value())) {
      shown = cut({old->left + dx, old->top + dy, old->right + dx, old->bottom + dy}, window);
      if (shown.empty()) {
        node.parent().remove_child(node);
        continue;
      }
      attribute.set_value(bounds_text(shown).c_str());
    }
    for (pugi::xml_node child : node.children("node")) pending.emplace_back(child, shown);
  }
}

}  // namespace adbwire::vdevice
