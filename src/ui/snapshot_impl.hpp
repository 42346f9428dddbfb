// Private state of ui::Snapshot and the steps of the pipeline that fill it.
#pragma once

#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/ui.hpp"

namespace adbwire::ui {

// One line of the pruned output, in output order.
struct OutputLine {
  NodeIndex node = kNoNode;  // kNoNode for a "- …" line standing for a cut subtree
  std::uint32_t depth = 0;
  bool bare = false;                   // interactive_only hid this node's text, desc and states
  std::uint32_t first_hidden_ref = 0;  // cut lines: refs first_hidden_ref.. hidden
  std::uint32_t hidden_refs = 0;
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
  std::vector<NodeIndex> top_level;  // nodes directly under <hierarchy>
  std::vector<OutputLine> lines;
  SnapshotOptions options;
  int rotation = 0;
};

// DESIGN.md's role for a class name; the result is a literal or a slice of class_name.
std::string_view role_for_class(std::string_view class_name, bool editable) noexcept;

// True for EditText and the classes known to derive from it.
bool is_editable_class(std::string_view class_name) noexcept;

// Numbers the clickable, editable and scrollable nodes and fills impl.refs with tokens.
void assign_refs(detail::SnapshotState& impl);

// Fills impl.lines from impl.nodes according to impl.options.
void prune(detail::SnapshotState& impl);

// Appends text with the escapes of the text format (see ui.hpp), cut to max_code_points
// (0 = no limit) with "…".
void append_escaped(std::string& out, std::string_view text, std::size_t max_code_points);

}  // namespace adbwire::ui
