// Private state of ui::Snapshot and the steps of the pipeline that fill it.
#pragma once

#include <array>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/ui.hpp"
#include "ui/escape.hpp"

namespace adbwire::ui {

enum class LineKind : std::uint8_t {
  node,
  cut,     // "- …" standing for a subtree max_depth cut
  window,  // "# KIND: PACKAGE" opening a run of windows that are not the app's
};

// One line of the pruned output, in output order.
struct OutputLine {
  NodeIndex node = kNoNode;  // node lines only
  std::uint32_t depth = 0;
  LineKind kind = LineKind::node;
  bool bare = false;                   // interactive_only hid this node's text, desc and states
  std::uint32_t first_hidden_ref = 0;  // cut lines: refs first_hidden_ref.. hidden
  std::uint32_t hidden_refs = 0;
  std::uint32_t window = 0;  // window lines: index into SnapshotState::windows
};

// Where a scrollable holds content the dump marks as not visible (SnapshotState::more).
enum MoreBit : std::uint8_t {
  kMoreAbove = 1,
  kMoreBelow = 2,
  kMoreLeft = 4,
  kMoreRight = 8,
};

struct detail::SnapshotState {
  // The XML text; pugixml parsed it in place and Node string_views point into it. The state is
  // heap-allocated and never moved, so those pointers survive moves of the Snapshot.
  std::string buffer;
  pugi::xml_document document;
  std::vector<Node> nodes;
  std::vector<pugi::xml_node_struct*> elements;  // element of nodes[i], for XPath results
  std::vector<Attribute> extras;
  std::vector<RefInfo> refs;
  std::vector<NodeIndex> top_level;          // nodes directly under <hierarchy>
  std::vector<Window> windows;               // the top-level nodes in display order
  std::vector<std::uint8_t> more;            // MoreBit set of each node (only visible scrollables)
  std::vector<std::uint8_t> labelled_below;  // a visible node below it has a text or desc
  std::vector<OutputLine> lines;
  SnapshotOptions options;
  AppInfo app;
  std::uint32_t app_refs = 0;  // refs 1..app_refs lie in the app's windows
  int rotation = 0;
  bool parsed = false;  // a dump was parsed (not a default or failed Snapshot)
};

// What a node's line shows besides role, id and ref (ui.hpp, "Text format").
struct NodeLabel {
  std::string_view text;
  bool show_text = false;  // the "text" part is printed (not empty, or an editable field)
  std::string_view hint;   // printed as hint="…"
  std::string_view desc;   // printed as (desc)
  std::uint16_t states = 0;
};

// The label of nodes[index]; all empty for a node that is not visible.
NodeLabel label_of(const detail::SnapshotState& impl, NodeIndex index) noexcept;

// Fills impl.labelled_below: for each node, whether a visible node below it has a text or desc.
void note_labels(detail::SnapshotState& impl);

// The states of the text format, in its order; bit i of NodeLabel::states is kStateNames[i].
inline constexpr std::array<std::string_view, 9> kStateNames{
    "password",   "checked",    "selected",  "focused",    "disabled",
    "more above", "more below", "more left", "more right",
};
inline constexpr unsigned kFirstMoreState = 5;  // MoreBit b is state bit kFirstMoreState + log2(b)

// Calls add(name) for each state in states, in the format's order.
template <typename Add>
void for_each_state(std::uint16_t states, Add add) {
  for (std::size_t i = 0; i < kStateNames.size(); ++i) {
    if (states & (1u << i)) add(kStateNames[i]);
  }
}

// The resource-id as show_ids prints it: without "<package>:id/" when package is the node's.
std::string_view short_id(const Node& node) noexcept;

// Classifies the top-level nodes into impl.windows (display order) and fills impl.app.
void classify_windows(detail::SnapshotState& impl);

// Fills impl.more: for each visible scrollable, where content not visible to the user lies.
void note_hidden_content(detail::SnapshotState& impl);

// The role for a class name (docs/design.md, Snapshot format); the result is a literal or a slice
// of class_name.
std::string_view role_for_class(std::string_view class_name, bool editable,
                                bool checkable) noexcept;

// True for EditText and the classes known to derive from it.
bool is_editable_class(std::string_view class_name) noexcept;

// Numbers the nodes that get refs (ui.hpp, "Refs") in display order and fills impl.refs.
void assign_refs(detail::SnapshotState& impl);

// Where a ref's element lives (ui.hpp, "Row context").
struct RowContext {
  std::uint64_t digest = 0;  // of its own labels and those that tell its row from others
  std::string row;           // the first of the row's labels, escaped (RefInfo::row)
};
// One per impl.refs.
std::vector<RowContext> row_contexts(const detail::SnapshotState& impl);

// Fills impl.lines from impl.nodes according to impl.options.
void prune(detail::SnapshotState& impl);

}  // namespace adbwire::ui
