// Refs and their tokens (docs/design.md, Refs).
#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <unordered_map>

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

std::array<std::int32_t, 4> cell(const Bounds& b) noexcept {
  return {quantize(b.left), quantize(b.top), quantize(b.right), quantize(b.bottom)};
}

void add_field(std::string& token, std::string_view field) {
  token += field;
  token += kFieldSeparator;
}

void add_number(std::string& token, std::uint64_t value) {
  char hex[16];
  const std::to_chars_result end = std::to_chars(hex, hex + sizeof hex, value, 16);
  add_field(token, std::string_view(hex, static_cast<std::size_t>(end.ptr - hex)));
}

// The fields shared by both tokens: what the element is, not where or in what state.
std::string identity_fields(const Node& node) {
  std::string token;
  token.reserve(node.package.size() + node.class_name.size() + node.resource_id.size() +
                node.text.size() + node.content_desc.size() + 64);
  add_field(token, node.package);
  add_field(token, node.class_name);
  add_field(token, node.resource_id);
  add_field(token, node.editable ? node.hint : node.text);
  add_field(token, node.content_desc);
  return token;
}

void add_flags(std::string& token, const Node& node) {
  for (bool flag :
       {node.clickable, node.long_clickable, node.editable, node.scrollable, node.checkable}) {
    token += flag ? '1' : '0';
  }
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
}

// Both tokens of every ref, with its row context and its look-alikes (ui.hpp, "Refs").
void fill_tokens(detail::SnapshotState& impl) {
  std::vector<RefInfo>& refs = impl.refs;
  const std::vector<RowContext> rows = row_contexts(impl);
  for (std::size_t r = 0; r < refs.size(); ++r) {
    RefInfo& info = refs[r];
    const Node& node = impl.nodes[info.node];
    std::string shared = identity_fields(node);
    add_number(shared, rows[r].digest);
    info.row = rows[r].row;
    info.exact_token = shared;
    for (const std::int32_t v : cell(node.bounds)) add_number(info.exact_token, std::uint32_t(v));
    info.identity_token = std::move(shared);
    add_flags(info.identity_token, node);
  }
  // Look-alikes (the same identity token): where all of them were goes into each one's exact
  // token, so an element found at its old place is taken for itself only while its look-alikes
  // did not move either (rows alike that scrolled by one put another in its place).
  std::unordered_map<std::string_view, std::vector<std::size_t>> alike;
  for (std::size_t r = 0; r < refs.size(); ++r) alike[refs[r].identity_token].push_back(r);
  for (const auto& [token, members] : alike) {
    for (const std::size_t r : members)
      refs[r].look_alikes = static_cast<std::uint32_t>(members.size());
    if (members.size() < 2) continue;
    std::vector<std::array<std::int32_t, 4>> cells;
    cells.reserve(members.size());
    for (const std::size_t r : members) cells.push_back(cell(refs[r].bounds));
    std::sort(cells.begin(), cells.end());
    std::uint64_t layout = 0xcbf29ce484222325ULL;
    for (const auto& c : cells) {
      for (const std::int32_t v : c)
        layout = (layout ^ static_cast<std::uint32_t>(v)) * 0x100000001b3ULL;
    }
    for (const std::size_t r : members) {
      add_number(refs[r].exact_token, members.size());
      add_number(refs[r].exact_token, layout);
    }
  }
}

// Controls looked at for unmarked_control per snapshot: real screens have a handful, and each
// costs a pass over its window.
constexpr std::size_t kMaxUnmarkedCandidates = 512;

// The visible clickable (or long-clickable) nodes, in document order, with their bounds: what
// could cover a control the app did not mark.
struct Clickable {
  NodeIndex node;
  Bounds bounds;
};

// A control the app did not mark clickable (many mark only a parent, or listen for touches
// themselves): an image or button with a desc or a focusable id, or a focusable group with a
// desc (a tab), small, in the app's window, with nothing clickable around or over it.
bool unmarked_control(const detail::SnapshotState& impl, NodeIndex i, const Window& window,
                      const std::vector<std::uint8_t>& in_clickable,
                      const std::vector<Clickable>& clickables, std::size_t& candidates) {
  const std::vector<Node>& nodes = impl.nodes;
  const Node& n = nodes[i];
  // Web content says what takes a click itself (the merge marks it clickable).
  if (window.kind != WindowKind::app || in_clickable[i] || !n.has_bounds || !n.enabled ||
      n.class_name.starts_with("web."))
    return false;
  const std::string_view role = n.role;
  const bool image_or_button = role == "Image" || role == "ImageButton" || role == "Button";
  const bool group = n.first_child != kNoNode;
  const bool named = !n.content_desc.empty() || (n.focusable && !n.resource_id.empty());
  if (!(image_or_button ? named : group && n.focusable && !n.content_desc.empty())) return false;
  if (++candidates > kMaxUnmarkedCandidates) return false;
  const std::int64_t area = std::int64_t{n.bounds.width()} * n.bounds.height();
  const std::int64_t screen = std::int64_t{window.bounds.width()} * window.bounds.height();
  if (2 * area > screen) return false;
  const Point centre = n.bounds.center();
  const NodeIndex end = nodes[window.root].subtree_end;
  auto over = std::upper_bound(clickables.begin(), clickables.end(), i,
                               [](NodeIndex at, const Clickable& c) { return at < c.node; });
  for (; over != clickables.end() && over->node < end; ++over) {
    if (over->bounds.contains(centre)) return false;
  }
  return true;
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
  std::vector<Clickable> clickables;
  for (NodeIndex i = 0; i < nodes.size(); ++i) {
    if ((nodes[i].clickable || nodes[i].long_clickable) && nodes[i].visible)
      clickables.push_back({i, nodes[i].bounds});
  }
  impl.app_refs = 0;
  std::size_t candidates = 0;
  for (const Window& window : impl.windows) {
    for (NodeIndex i = window.root; i < nodes[window.root].subtree_end; ++i) {
      const Node& n = nodes[i];
      if (!n.visible) continue;
      if (n.clickable || n.long_clickable || n.editable || n.scrollable ||
          (n.checkable && !in_clickable[i]) ||
          unmarked_control(impl, i, window, in_clickable, clickables, candidates)) {
        add_ref(impl, i);
      }
    }
    if (window.kind == WindowKind::app)
      impl.app_refs = static_cast<std::uint32_t>(impl.refs.size());
  }
  fill_tokens(impl);
}

RefMatch find_ref(const RefInfo& old, const Snapshot& current) noexcept {
  RefMatch match;
  match.look_alikes_before = std::max<std::size_t>(old.look_alikes, 1);
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
  } else if (match.look_alikes == 1 && match.look_alikes_before == 1) {
    match.kind = RefMatch::Kind::moved;
    match.node = identity;
  } else if (match.look_alikes == 0) {
    match.kind = RefMatch::Kind::gone;
  } else {
    match.kind = match.look_alikes_before > 1 ? RefMatch::Kind::look_alikes_moved
                                              : RefMatch::Kind::ambiguous;
  }
  return match;
}

std::string stale_reason(const RefInfo& old, const RefMatch& match) {
  const std::string in_row = old.row.empty() ? std::string() : " in the row \"" + old.row + "\"";
  switch (match.kind) {
    case RefMatch::Kind::exact:
    case RefMatch::Kind::moved:
      return {};
    case RefMatch::Kind::gone:
      return "is gone from the screen (no element like it" + in_row + " is there)";
    case RefMatch::Kind::ambiguous:
      return "now matches " + std::to_string(match.look_alikes) +
             " elements, none of them at its old place";
    case RefMatch::Kind::look_alikes_moved:
      return "had " + std::to_string(match.look_alikes_before - 1) +
             " look-alike(s) when the snapshot was taken (rows alike" + in_row +
             ") and they moved, so which one it is cannot be told";
  }
  return {};
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
    throw Error(error, "ref " + std::to_string(old.ref) + " (" + old.label + ") " +
                           stale_reason(old, find_ref(old, current)) +
                           "; take a new snapshot and use its refs");
  }
  return node;
}

}  // namespace adbwire::ui
