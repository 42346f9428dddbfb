// Refs and their tokens (DESIGN.md, "Refs must never act on the wrong element").
#include <string>

#include "adbwire/error.hpp"
#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

// Separates token fields; uiautomator never writes it (XML 1.0 forbids the character).
constexpr char kFieldSeparator = '\x1f';

std::int32_t quantize(std::int32_t v) noexcept {
  // Rounds toward negative infinity so off-screen (negative) bounds bucket consistently.
  return v >= 0 ? v / kBoundsQuantum : -((-v + kBoundsQuantum - 1) / kBoundsQuantum);
}

void add_field(std::string& token, std::string_view field) {
  token += field;
  token += kFieldSeparator;
}

// The fields shared by both tokens: what the element is, not where or in what state.
std::string identity_fields(const Node& node) {
  std::string token;
  token.reserve(node.package.size() + node.class_name.size() + node.resource_id.size() +
                node.text.size() + node.content_desc.size() + 48);
  add_field(token, node.package);
  add_field(token, node.class_name);
  add_field(token, node.resource_id);
  add_field(token, node.editable ? node.hint : node.text);
  add_field(token, node.content_desc);
  return token;
}

// Role plus what identifies the element to a person: its text, else its hint, else its desc.
std::string describe(const detail::SnapshotState& impl, NodeIndex index) {
  const Node& node = impl.nodes[index];
  const NodeLabel shown = label_of(impl, index);
  std::string label;
  append_escaped(label, node.role, kCompactTextLength);
  if (!shown.text.empty()) {
    label += " \"";
    append_escaped(label, shown.text, kCompactTextLength);
    label += '"';
  } else if (!shown.hint.empty()) {
    label += " hint=\"";
    append_escaped(label, shown.hint, kCompactTextLength);
    label += '"';
  } else if (!node.content_desc.empty()) {
    label += " (";
    append_escaped(label, node.content_desc, kCompactTextLength);
    label += ')';
  }
  return label;
}

void add_ref(detail::SnapshotState& impl, NodeIndex i) {
  Node& node = impl.nodes[i];
  node.ref = static_cast<std::uint32_t>(impl.refs.size() + 1);
  RefInfo& info = impl.refs.emplace_back();
  info.ref = node.ref;
  info.node = i;
  info.bounds = node.bounds;
  info.label = describe(impl, i);
  const std::string shared = identity_fields(node);
  info.exact_token = shared;
  for (std::int32_t v :
       {node.bounds.left, node.bounds.top, node.bounds.right, node.bounds.bottom}) {
    info.exact_token += std::to_string(quantize(v));
    info.exact_token += kFieldSeparator;
  }
  info.identity_token = shared;
  for (bool flag :
       {node.clickable, node.long_clickable, node.editable, node.scrollable, node.checkable}) {
    info.identity_token += flag ? '1' : '0';
  }
}

}  // namespace

void assign_refs(detail::SnapshotState& impl) {
  const std::vector<Node>& nodes = impl.nodes;
  // A checkable part of a clickable row (a list dialog's radio or CheckedTextView) is acted
  // on through the row, so only a checkable node with no clickable ancestor gets a ref.
  std::vector<std::uint8_t> in_clickable(nodes.size(), 0);
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    const NodeIndex p = nodes[i].parent;
    in_clickable[i] = p != kNoNode && (in_clickable[p] || (nodes[p].clickable && nodes[p].visible));
  }
  impl.app_refs = 0;
  for (const Window& window : impl.windows) {
    for (NodeIndex i = window.root; i < nodes[window.root].subtree_end; ++i) {
      const Node& n = nodes[i];
      if (!n.visible) continue;
      if (n.clickable || n.long_clickable || n.editable || n.scrollable ||
          (n.checkable && !in_clickable[i])) {
        add_ref(impl, i);
      }
    }
    if (window.kind == WindowKind::app)
      impl.app_refs = static_cast<std::uint32_t>(impl.refs.size());
  }
}

RefMatch find_ref(const RefInfo& old, const Snapshot& current) noexcept {
  RefMatch match;
  if (old.exact_token.empty() || old.identity_token.empty()) return match;
  NodeIndex exact = kNoNode;
  NodeIndex identity = kNoNode;
  std::size_t exact_hits = 0;
  for (const RefInfo& candidate : current.refs()) {
    if (candidate.exact_token == old.exact_token) {
      exact = candidate.node;
      ++exact_hits;
    }
    if (candidate.identity_token == old.identity_token) {
      identity = candidate.node;
      ++match.look_alikes;
    }
  }
  if (exact_hits == 1) {
    match.kind = RefMatch::Kind::exact;
    match.node = exact;
  } else if (match.look_alikes == 1) {
    match.kind = RefMatch::Kind::moved;
    match.node = identity;
  } else {
    match.kind = match.look_alikes == 0 ? RefMatch::Kind::gone : RefMatch::Kind::ambiguous;
  }
  return match;
}

NodeIndex resolve(const RefInfo& old, const Snapshot& current, std::error_code& error) {
  error.clear();
  if (old.exact_token.empty() || old.identity_token.empty()) {
    error = make_error_code(errc::invalid_argument);
    return kNoNode;
  }
  const RefMatch match = find_ref(old, current);
  if (match.node == kNoNode) error = make_error_code(errc::stale_ref);
  return match.node;
}

NodeIndex resolve(const RefInfo& old, const Snapshot& current) {
  std::error_code error;
  const NodeIndex node = resolve(old, current, error);
  if (error == errc::invalid_argument) {
    throw Error(error,
                "resolve: the RefInfo carries no tokens; pass one taken from Snapshot::refs()");
  }
  if (error) {
    const std::size_t identity_hits = find_ref(old, current).look_alikes;
    throw Error(error,
                "ref " + std::to_string(old.ref) + " (" + old.label +
                    ") does not match the current screen: " +
                    (identity_hits == 0
                         ? std::string("no element like it is there")
                         : std::to_string(identity_hits) +
                               " elements look like it and none is uniquely at its old place") +
                    "; take a new snapshot and use its refs");
  }
  return node;
}

}  // namespace adbwire::ui
