// The UI snapshot: a uiautomator dump parsed into a node tree, pruned, given [ref=N] markers
// and formatted as the YAML-like text agents read (DESIGN.md, "Snapshot format").
//
// Text format, one line per kept node, two spaces of indent per depth:
//   - Role [ref=N] "text" (content-desc) [checked, selected, focused, disabled]
// The ref, text, desc and state parts appear only when present; an editable field always
// shows its text, even "". Inside "text" and (desc) a backslash is written \\, a double
// quote \", newline \n, carriage return \r, tab \t and any other control character below
// U+0020 as \u00XX, so every node stays on one line; all other UTF-8 passes through as is.
// A subtree cut by max_depth becomes one line "- …", followed by " [refs A-B hidden]" when
// it held refs.
//
// Prune rules: refs go to clickable, editable and scrollable nodes in document order from 1.
// A node without ref, text, desc or shown state and with exactly one kept child is replaced
// by that child; such a node with no kept child is dropped. A kept sibling whose subtree
// renders identically to an earlier kept sibling (same class, text, desc, states and
// children) is dropped unless its subtree carries a ref. No other rule ever removes a ref.
//
// Thread safety: a Snapshot is immutable once parsed; its const members may be called from
// several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/ui_node.hpp"

namespace adbwire::ui {

namespace detail {
struct SnapshotState;  // defined in src/ui; holds the parsed document
}  // namespace detail

struct SnapshotOptions {
  // Hide text, desc and states of nodes that neither carry a ref nor sit inside a node
  // that does (an interactive element's own label is kept).
  bool interactive_only = false;
  // Levels of nodes printed; 0 means all. The kept children of a node on the last printed
  // level are replaced by one "- …" line, which names the refs it hides. Refs keep their
  // numbers whatever is printed.
  std::uint32_t max_depth = 0;
  // For very large screens: unlabeled groups are not printed (their children move up to
  // the group's depth) and text or desc longer than kCompactTextLength code points is cut
  // with "…".
  bool compact = false;
};

inline constexpr std::size_t kCompactTextLength = 80;

// Side of the square, in pixels, that bounds are rounded down to in a ref's exact token.
inline constexpr std::int32_t kBoundsQuantum = 8;

// What a ref remembers so a later action can be checked against the current screen.
// Owns its strings: it stays valid after the Snapshot that issued it is gone.
struct RefInfo {
  std::uint32_t ref = 0;
  NodeIndex node = kNoNode;  // in the snapshot that issued the ref
  Bounds bounds;
  std::string label;  // role plus text or desc, for messages: Button "Submit"
  // package, class, resource-id, text, desc and bounds rounded to kBoundsQuantum. An
  // editable field contributes its hint instead of its text, which typing changes.
  std::string exact_token;
  // The exact token without bounds, plus the clickable, long-clickable, editable,
  // scrollable and checkable flags. Volatile state (focused, selected, checked, enabled)
  // is in neither token, so a focus tap or a toggle does not stale the ref.
  std::string identity_token;
};

// Per-node answer to "where do I tap this?".
struct ElementInfo {
  NodeIndex node = kNoNode;
  std::uint32_t ref = 0;
  Bounds bounds;
  Point center;
  // A point inside bounds not covered by another interactive node that would take the
  // touch (an interactive descendant, or an overlapping one later in document order or in
  // another window), as close to the centre as possible. tap_point_clear is false when
  // no such point exists; tap_point is then the centre.
  Point tap_point;
  bool tap_point_clear = true;
};

enum class FindField { resource_id, text, content_desc };
enum class MatchMode {
  exact,    // whole value; for resource-id also the name after ":id/"
  partial,  // substring, ASCII case-insensitive
};

class Snapshot {
 public:
  // An empty snapshot: no nodes, no refs (what the error_code overload of parse_dump
  // returns on failure). A moved-from Snapshot may only be assigned to or destroyed.
  Snapshot();
  Snapshot(Snapshot&&) noexcept;
  Snapshot& operator=(Snapshot&&) noexcept;
  ~Snapshot();

  // All nodes in document order, including those the pruned output leaves out.
  std::span<const Node> nodes() const noexcept;
  const Node& node(NodeIndex index) const;  // index < nodes().size()
  std::span<const Attribute> extra_attributes(NodeIndex index) const;

  // The refs of this snapshot; refs()[n - 1].ref == n.
  std::span<const RefInfo> refs() const noexcept;
  // The ref numbered n, or nullptr when this snapshot issued no such ref.
  const RefInfo* ref(std::uint32_t n) const noexcept;

  // The "rotation" attribute of <hierarchy> (0–3), 0 when absent.
  int rotation() const noexcept;
  const SnapshotOptions& options() const noexcept;

  // The pruned tree in the text format described at the top of this header.
  std::string to_text() const;
  // The same pruned tree as JSON: {"rotation":R,"nodes":[{"role","ref","text","desc",
  // "hint","states","class","resource_id","bounds":[l,t,r,b],"children":[…]}]}, empty
  // fields left out; a cut subtree is {"truncated":true,"hidden_refs":[A,B]}. Invalid
  // UTF-8 from the device is replaced by U+FFFD so the output is always valid JSON.
  std::string to_json() const;

  // Nodes matching needle, in document order: the first non-empty of exact resource-id,
  // exact text, exact desc, partial resource-id, partial text, partial desc.
  std::vector<NodeIndex> find(std::string_view needle) const;
  std::vector<NodeIndex> find(FindField field, std::string_view value, MatchMode mode) const;

  // Evaluates an XPath 1.0 query on the dump as parsed (elements are <node> in uiautomator
  // dumps and class names in Appium page sources). Returns the matched element nodes in
  // document order; an attribute match yields its element. Errors: invalid_argument for a
  // malformed query or one that does not select nodes (the message quotes the query).
  std::vector<NodeIndex> xpath(std::string_view query) const;
  std::vector<NodeIndex> xpath(std::string_view query, std::error_code& error) const;

  // Bounds, centre and a clear tap point of a node (index < nodes().size()).
  ElementInfo info(NodeIndex index) const;

 private:
  friend Snapshot parse_dump(std::string, const SnapshotOptions&, std::error_code&, std::string*);
  std::unique_ptr<detail::SnapshotState> impl_;
};

// Parses a uiautomator dump (or an Appium page source) taken over by value so it is parsed
// in place without a copy. Text before the XML (warnings) and after </hierarchy> (as
// `uiautomator dump /dev/tty` prints) is ignored.
// Errors, all parse_error: "empty dump"; device text instead of XML, for example
// "ERROR: could not get idle state." (the message quotes it); malformed XML (the message
// gives line, column and byte offset); a root element other than <hierarchy>.
// `detail`, when given, receives the same message the throwing overload would carry.
Snapshot parse_dump(std::string xml, const SnapshotOptions& options = {});
Snapshot parse_dump(std::string xml, const SnapshotOptions& options, std::error_code& error,
                    std::string* detail = nullptr);

// Finds the element a ref of an older snapshot names on the current screen: the node with
// the same exact token if exactly one has it, else the node with the same identity token if
// exactly one has it. Errors: stale_ref when neither is unique (never a guess);
// invalid_argument for a RefInfo with no tokens.
NodeIndex resolve(const RefInfo& old, const Snapshot& current);
NodeIndex resolve(const RefInfo& old, const Snapshot& current, std::error_code& error);

}  // namespace adbwire::ui
