// Content the user cannot see: nodes that are not visible are left out of the text, and the
// visible scrollable holding them says which way the rest lies ("more below", …).
#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

// Something the agent would read or act on, were it on screen.
bool has_content(const Node& n) noexcept {
  return !n.text.empty() || !n.content_desc.empty() || n.clickable || n.long_clickable ||
         n.editable || n.checkable || n.scrollable;
}

std::uint8_t direction(const Node& n, const Node& box) noexcept {
  if (!n.has_bounds || n.bounds.empty() || !box.has_bounds) return 0;
  if (n.bounds.bottom <= box.bounds.top) return kMoreAbove;
  if (n.bounds.top >= box.bounds.bottom) return kMoreBelow;
  if (n.bounds.right <= box.bounds.left) return kMoreLeft;
  if (n.bounds.left >= box.bounds.right) return kMoreRight;
  return 0;
}

}  // namespace

void note_hidden_content(detail::SnapshotState& impl) {
  const std::vector<Node>& nodes = impl.nodes;
  impl.more.assign(nodes.size(), 0);
  // The nearest visible scrollable strictly above each node, and the first and last visible
  // node with content that each such scrollable holds (document order stands for scroll
  // order where a hidden node has no usable bounds).
  std::vector<NodeIndex> scroller(nodes.size(), kNoNode);
  std::vector<NodeIndex> first_shown(nodes.size(), kNoNode);
  std::vector<NodeIndex> last_shown(nodes.size(), kNoNode);
  bool any_hidden = false;
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    const NodeIndex p = nodes[i].parent;
    if (p != kNoNode) scroller[i] = nodes[p].visible && nodes[p].scrollable ? p : scroller[p];
    const NodeIndex s = scroller[i];
    if (!has_content(nodes[i])) continue;
    if (!nodes[i].visible) {
      any_hidden = true;
    } else if (s != kNoNode) {
      if (first_shown[s] == kNoNode) first_shown[s] = i;
      last_shown[s] = i;
    }
  }
  if (!any_hidden) return;
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    const NodeIndex s = scroller[i];
    if (nodes[i].visible || s == kNoNode || !has_content(nodes[i])) continue;
    std::uint8_t way = direction(nodes[i], nodes[s]);
    if (way == 0) {
      if (first_shown[s] == kNoNode || i > last_shown[s]) {
        way = kMoreBelow;
      } else if (i < first_shown[s]) {
        way = kMoreAbove;
      }
    }
    impl.more[s] |= way;
  }
}

}  // namespace adbwire::ui
