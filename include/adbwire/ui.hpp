// The UI snapshot: a uiautomator dump parsed into a node tree, pruned, given [ref=N] markers
// and formatted as the YAML text agents read (docs/design.md, Snapshot format).
//
// Text format: a valid YAML document (checked with libyaml on every corpus dump) made of
// comment lines and one list item per kept node, two spaces of indent per depth:
//   # app: com.example.shop (com.example.shop/.AddActivity), keyboard shown
//   - Group:
//     - Text "New item"
//     - TextInput [ref=1] "" hint="Item name" [focused]
//     - TextInput [ref=2] "" hint="PIN" [password]
//     - Switch [ref=3] "Gift wrap" [checked]
//     - List [ref=4] [more below]:
//       - Text "Recent: apples"
//   # keyboard: com.google.android.inputmethod.latin
//   - Group:
//     - Group [ref=5] (Delete)
//
// A node's line is `- Role#id [ref=N] "text" hint="hint" (desc) [states]`; each part appears
// only when present:
// - Role: role_for_class (docs/design.md, Snapshot format). #id with SnapshotOptions::show_ids:
//   the resource-id, without "<package>:id/" when that package is the node's own.
// - [ref=N]: see Refs below. A ref that would show no text, hint or desc and has no visible
//   node with a text or desc below it is told apart from its neighbours by its #id (even
//   without show_ids), else by " @X,Y", the centre of its bounds: `- View [ref=28] @540,2280`.
// - "text": shown when not empty, and always on an editable field, even "". A field whose
//   text is its hint (equal to the hint attribute, or Appium's showing-hint="true") shows "",
//   so a placeholder never looks typed.
// - hint="…": the hint of an editable field whose shown text is empty.
// - (desc): the content-desc, left out when it equals the shown text or hint.
// - [states], in this order: password, checked, selected, focused, disabled (not enabled),
//   then on a scrollable "more above", "more below", "more left", "more right" when it holds
//   content the dump marks as not visible in that direction (by its bounds; for empty bounds,
//   by document order before or after the visible content), and "ocr" on text read from the
//   screen's pixels (a node of class kOcrClass, which Page adds where the tree is empty).
// A node with kept children ends its line with ":" and its children follow one level deeper,
// so a YAML reader gets nested lists of one-key mappings. When the part after "- " would not
// read back as the same plain YAML string (it holds ": " or " #", ends with ":" or a space,
// starts with anything but a letter or a non-ASCII character, or is a YAML bool or null word),
// it is written in single quotes with ' doubled. A line that is a mapping key is kept under
// YAML's 1024-character key limit by cutting its text, hint, desc, role and id with "…" (to
// 80 code points, then 16); its ref and states stay whole.
// Inside "text", hint="…" and (desc) a backslash is written \\, a double quote \", newline \n,
// carriage return \r, tab \t, and the characters YAML forbids or reads as line breaks (other
// C0 and C1 controls, DEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF) and the bidirectional
// overrides and isolates a terminal would act on (U+202A..U+202E, U+2066..U+2069) as \u00XX or
// \uXXXX; bytes that are not UTF-8 become U+FFFD. Role and id are escaped the same way.
// A subtree cut by max_depth becomes one line "- …", followed by " [refs A-B hidden]" when
// it held refs.
//
// Comment lines:
// - "# app: PACKAGE (ACTIVITY)" first: SnapshotOptions::app_package and app_activity, else
//   the package inferred from the dump (the largest top-level window of a package that is
//   neither a keyboard nor com.android.systemui; failing that the largest window). ", keyboard
//   shown" follows when a keyboard window is in the dump; ", screen shows OTHER" when the
//   given package has no window in the dump (the windows are then ordered by OTHER). Left out
//   when no package is known.
// - "# no element to act on in PACKAGE (a game or a custom-drawn screen): use a screenshot
//   and tap by coordinates" second, when the app's windows hold no ref.
// - Windows: every top-level node of the dump is a window (uiautomator2 dumps all windows; a
//   plain `uiautomator dump` holds one). The app's windows come first; the others follow in
//   the order keyboard, overlay, system, status bar, navigation bar, each run of windows of one
//   kind and package opened by "# KIND: PACKAGE". KIND is keyboard (is_keyboard_package),
//   status bar or navigation bar (a com.android.systemui strip along the top, or the bottom or
//   a side of the screen), system (other com.android.systemui windows) or overlay (any other
//   package). A window that prunes to nothing prints no line.
// The output is never empty while a package is known: a screen with nothing kept still has
// its "# app" and "# no element" lines.
//
// Refs go to the visible nodes that are clickable, long-clickable, editable or scrollable,
// to visible checkable nodes without a clickable ancestor (a checkable row part is acted
// on through its row), and to the native controls of the app's windows that the app did not
// mark clickable (many mark only a parent, or take touches themselves): an enabled Image,
// ImageButton or Button with a desc or a focusable one with a resource-id, or a focusable
// group with a desc (a tab), at most half its window's area, with no clickable ancestor and no
// clickable node after it in its window over its centre (the first 512 such candidates of a
// snapshot are looked at). They are numbered from 1 in the order shown, so the app's come
// first.
// Nodes that are not visible (Node::visible) get no ref and show no text, desc or state.
//
// Prune rules: a node without ref, text, desc, hint or shown state and with exactly one kept
// child is replaced by that child; such a node with no kept child is dropped. A kept sibling
// whose subtree renders identically to an earlier kept sibling (same class, role, text, hint,
// desc, id, states and children) is dropped unless its subtree carries a ref. No other rule
// ever removes a ref.
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
  // Print resource ids after the role: Button#login for "com.example:id/login" in a node of
  // com.example, Text#android:id/title for an id of another package.
  bool show_ids = false;
  // The foreground app as the caller knows it (for example from `dumpsys activity`): its
  // package, and when known its activity as `am start -n` takes it ("com.example/.Main").
  // With no package, the app is inferred from the dump (see "Comment lines" above).
  std::string app_package = {};
  std::string app_activity = {};
};

inline constexpr std::size_t kCompactTextLength = 80;

// The class of the nodes Page adds for text read from the screen's pixels (PageOptions::ocr):
// its role is Text, its line ends in [ocr].
inline constexpr std::string_view kOcrClass = "adbwire.ocr.Text";

// Side of the square, in pixels, that bounds are rounded down to in a ref's exact token.
inline constexpr std::int32_t kBoundsQuantum = 8;

// What a ref remembers so a later action can be checked against the current screen.
// Owns its strings: it stays valid after the Snapshot that issued it is gone.
//
// Row context: a ref's tokens name where its element lives, so the same button in another row
// of a list is another element. They hold a digest of the element's own labels (the text, or
// an editable field's hint, and desc of it and every visible node below it) and of its row's:
// - inside a scrollable, the labels of its item, the child of the list that holds it (below
//   wrappers: a lone visible child that fills its parent, or a ScrollView's one child); an
//   element that is the item itself and has no labelled node below
//   it takes the labels of its siblings beside it (overlapping it vertically), as in a list
//   whose rows are not grouped; a row with no label at all (its text cut off at the list's
//   edge) takes the labels of its nearest labelled neighbour row, before it, else after it;
// - outside scrollables, only an element with no label of its own (an icon without a
//   description) takes a row: the labels of its nearest ancestor that has some;
// - an editable field or a scrollable takes none: its hint or id and place name it (the labels
//   around a field change as it is typed into, those around a list as it scrolls).
// What scrollables inside the row hold is left out (it moves when they scroll); so is what is
// not visible. Reading a context stops after 2000 nodes, and the contexts of one snapshot after
// 4,000,000 in all. Rows alike in every label are told
// apart only by place: once such look-alikes moved, their refs are stale (RefMatch); moved by
// exactly whole rows they show the very same screen, which no reading can tell from the old.
struct RefInfo {
  std::uint32_t ref = 0;
  NodeIndex node = kNoNode;  // in the snapshot that issued the ref
  Bounds bounds;
  std::string label;  // role plus text or desc, for messages: Button "Submit"
  // The first labels of its row (escaped as the text format does, cut to 60 code points),
  // for messages: "Alice Smith · 2h"; "" when it has none.
  std::string row;
  // package, class, resource-id, text, desc, the row context and bounds rounded to
  // kBoundsQuantum; for an element with look-alikes (refs of its snapshot with the same
  // identity token) also how many there are and where all of them were. An editable field
  // contributes its hint instead of its text, which typing changes.
  std::string exact_token;
  // package, class, resource-id, text, desc and the row context, plus the clickable,
  // long-clickable, editable, scrollable and checkable flags. Volatile state (focused,
  // selected, checked, enabled) is in neither token, so a focus tap or a toggle does not stale
  // the ref.
  std::string identity_token;
  // Refs of its snapshot with its identity token, itself included (0: a RefInfo made by hand).
  std::uint32_t look_alikes = 0;
};

// What a top-level node of the dump is, for the order and the "# KIND: PACKAGE" lines of the
// text format.
enum class WindowKind : std::uint8_t {
  app,             // a window of the foreground app
  keyboard,        // an input method (is_keyboard_package)
  status_bar,      // com.android.systemui along the top edge
  navigation_bar,  // com.android.systemui along the bottom or a side edge
  system,          // any other com.android.systemui window (shade, lock screen, indicators)
  overlay,         // a window of another package (a chat head, an edge panel, a system dialog)
};

// What an editable field holds as typed text: its text, or "" when that text is its hint (equal
// to the hint attribute, or Appium's showing-hint="true"; older Android reports an empty
// field's hint as its text). For other nodes, the text. Points into the node's Snapshot.
std::string_view field_text(const Node& node) noexcept;

// "app", "keyboard", "status bar", "navigation bar", "system" or "overlay".
std::string_view to_string(WindowKind kind) noexcept;

// True for an input method's package: a dot-separated part containing "inputmethod",
// "keyboard", "honeyboard", "pinyin" or "swiftkey", a part equal to "ime", or a known one
// (com.baidu.input*, com.tencent.wetype).
bool is_keyboard_package(std::string_view package) noexcept;

struct Window {
  NodeIndex root = kNoNode;  // the top-level node
  WindowKind kind = WindowKind::app;
  std::string_view package;  // the first non-empty package in the window; valid as Node strings
  Bounds bounds;             // of the root node
};

// The foreground app a snapshot is about.
struct AppInfo {
  std::string package;    // empty when neither the caller nor the dump names one
  std::string activity;   // SnapshotOptions::app_activity; empty when not given
  std::string shown;      // the package the windows are ordered by (differs from package
                          // only when the given package has no window in the dump)
  bool inferred = false;  // package came from the dump, not from SnapshotOptions
  bool keyboard = false;  // a keyboard window is in the dump
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
  // The bounds of those other nodes: a point of bounds outside all of them is clear (where
  // PageOptions::stealth taps).
  std::vector<Bounds> occluders;
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

  // The top-level nodes in the order the text shows them: the app's windows first.
  std::span<const Window> windows() const noexcept;
  const AppInfo& app() const noexcept;

  // The "rotation" attribute of <hierarchy> (0–3), 0 when absent.
  int rotation() const noexcept;
  const SnapshotOptions& options() const noexcept;

  // The pruned tree in the text format described at the top of this header.
  std::string to_text() const;
  // The same pruned tree as JSON: {"app":{"package","activity","shown","inferred":true,
  // "keyboard":true},"rotation":R,"note":"…","nodes":[…],"windows":[{"kind","package",
  // "nodes":[…]}]} where "nodes" holds the app's windows and "windows" the runs of other
  // windows in the text's order ("kind" as to_string names it, with "_" for spaces), and each
  // node is {"role","ref","text","hint","desc","states","class","resource_id","bounds":
  // [l,t,r,b],"visible","children":[…]}: empty fields and false flags left out, "text" as the
  // text format shows it ("" for a hint reported as text), "hint" and "desc" as the dump has
  // them, "visible":false only on a printed wrapper that is not visible itself. "note" is the
  // "no element" line's text. A cut subtree is {"truncated":true,"hidden_refs":[A,B]}. Invalid
  // UTF-8 from the device is replaced by U+FFFD so the output is always valid JSON; controls,
  // DEL, C1 controls, bidirectional overrides and U+2028/U+2029 are written \uXXXX, so a
  // terminal showing it is not acted on.
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

// Where the element a ref of an older snapshot names is on the current screen, and how it
// was found (resolve's rule, with the reason when there is no answer).
struct RefMatch {
  enum class Kind {
    exact,      // the same exact token, once: the element has not moved (nor its look-alikes)
    moved,      // no single exact token, but exactly one identity token, as when the ref was
                // issued: found elsewhere
    gone,       // no element has its identity token any more
    ambiguous,  // several elements have its identity token and none is at its old place
    look_alikes_moved,  // it had look-alikes when the ref was issued and they moved: which
                        // of them it is cannot be told
  };
  Kind kind = Kind::gone;
  NodeIndex node = kNoNode;            // in current, for exact and moved
  std::size_t look_alikes = 0;         // elements with its identity token now
  std::size_t look_alikes_before = 1;  // RefInfo::look_alikes (at least 1)
};
// Never throws; a RefInfo without tokens is `gone`.
RefMatch find_ref(const RefInfo& old, const Snapshot& current) noexcept;

// Why match found no element, in words that follow "ref N (Button "Follow") ": "is gone from
// the screen (…)", "now matches 2 elements, none of them at its old place", "had 3 look-alike(s)
// when the snapshot was taken (…) and they moved, …". "" for exact and moved.
std::string stale_reason(const RefInfo& old, const RefMatch& match);

// Finds the element a ref of an older snapshot names on the current screen: the node with
// the same exact token if exactly one has it, else the node with the same identity token if
// exactly one has it and the ref had no look-alikes. Errors: stale_ref otherwise (never a
// guess); invalid_argument for a RefInfo with no tokens.
NodeIndex resolve(const RefInfo& old, const Snapshot& current);
NodeIndex resolve(const RefInfo& old, const Snapshot& current, std::error_code& error);

}  // namespace adbwire::ui
