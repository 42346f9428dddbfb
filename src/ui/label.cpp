// What a node's line says about it: shown text, hint, desc and states (ui.hpp, "Text format").
// Pruning and both renderings read it from here, so a repeat is judged on what is printed.
#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kIdMarker = ":id/";

// Older Android reports an empty field's hint as its text; Appium says so with showing-hint.
bool text_is_hint(const Node& n) noexcept {
  return n.editable && !n.text.empty() && (n.showing_hint || n.text == n.hint);
}

}  // namespace

std::string_view field_text(const Node& node) noexcept {
  return text_is_hint(node) ? std::string_view() : node.text;
}

NodeLabel label_of(const detail::SnapshotState& impl, NodeIndex index) noexcept {
  const Node& n = impl.nodes[index];
  NodeLabel label;
  if (!n.visible) return label;
  label.text = field_text(n);
  label.show_text = !label.text.empty() || n.editable;
  if (n.editable && label.text.empty()) label.hint = n.hint.empty() ? n.text : n.hint;
  label.desc = n.content_desc;
  if (label.desc == label.text || label.desc == label.hint) label.desc = {};
  std::uint16_t states = 0;
  if (n.password) states |= 1u << 0;
  if (n.checked) states |= 1u << 1;
  if (n.selected) states |= 1u << 2;
  if (n.focused) states |= 1u << 3;
  if (!n.enabled) states |= 1u << 4;
  states |= static_cast<std::uint16_t>(impl.more[index] << kFirstMoreState);
  if (n.class_name == kOcrClass) states |= 1u << kOcrState;
  label.states = states;
  return label;
}

void note_labels(detail::SnapshotState& impl) {
  const std::vector<Node>& nodes = impl.nodes;
  impl.labelled_below.assign(nodes.size(), 0);
  // Children follow their parent: one pass from the end sees a subtree before its root.
  for (NodeIndex i = static_cast<NodeIndex>(nodes.size()); i-- > 0;) {
    const Node& n = nodes[i];
    const bool own = n.visible && (!n.text.empty() || !n.content_desc.empty());
    if (n.parent != kNoNode && (own || impl.labelled_below[i])) impl.labelled_below[n.parent] = 1;
  }
}

std::string_view short_id(const Node& node) noexcept {
  const std::string_view id = node.resource_id;
  const auto marker = id.find(kIdMarker);
  if (marker == std::string_view::npos || id.substr(0, marker) != node.package) return id;
  return id.substr(marker + kIdMarker.size());
}

}  // namespace adbwire::ui
