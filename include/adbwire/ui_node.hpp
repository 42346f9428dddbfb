// One element of a parsed uiautomator dump, with every attribute uiautomator writes.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace adbwire::ui {

// Position of a node in Snapshot::nodes(); nodes are stored in document (pre-)order, so a
// node's descendants are exactly the indices [index + 1, subtree_end).
using NodeIndex = std::uint32_t;
inline constexpr NodeIndex kNoNode = std::numeric_limits<NodeIndex>::max();

struct Point {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

// Screen rectangle as uiautomator prints it, "[left,top][right,bottom]": right and bottom
// are exclusive, so a point is inside when left <= x < right and top <= y < bottom.
struct Bounds {
  std::int32_t left = 0;
  std::int32_t top = 0;
  std::int32_t right = 0;
  std::int32_t bottom = 0;

  std::int32_t width() const noexcept { return right - left; }
  std::int32_t height() const noexcept { return bottom - top; }
  bool empty() const noexcept { return right <= left || bottom <= top; }
  bool contains(Point p) const noexcept {
    return p.x >= left && p.x < right && p.y >= top && p.y < bottom;
  }
  bool intersects(const Bounds& o) const noexcept {
    return !empty() && !o.empty() && left < o.right && o.left < right && top < o.bottom &&
           o.top < bottom;
  }
  // The centre `input tap` uses (integer division, like uiautomator's own centre).
  Point center() const noexcept { return {left + width() / 2, top + height() / 2}; }
  friend bool operator==(const Bounds&, const Bounds&) = default;
};

// An attribute the Node struct has no field for (NAF, visible-to-user, a11y-important, …).
struct Attribute {
  std::string_view name;
  std::string_view value;
};

// A node of the dump. Every string_view points into the Snapshot that produced it and is
// valid exactly as long as that Snapshot (moving the Snapshot keeps them valid). Strings are
// UTF-8 as the device wrote them, with XML entities decoded (newlines stay newlines).
struct Node {
  std::string_view class_name;  // "class" attribute (Appium: the element name when absent)
  std::string_view role;        // docs/design.md, Snapshot format: "Button", "Group", …
  std::string_view text;
  std::string_view resource_id;
  std::string_view content_desc;
  std::string_view package;
  std::string_view hint;  // newer Android only; empty when absent
  Bounds bounds;
  bool has_bounds = false;          // false when the attribute was absent or unreadable
  std::int32_t index = 0;           // uiautomator's "index" (position among siblings)
  std::int32_t drawing_order = -1;  // -1 when absent
  std::int32_t display_id = -1;     // -1 when absent

  bool checkable = false;
  bool checked = false;
  bool clickable = false;
  bool enabled = true;  // absent means enabled
  bool focusable = false;
  bool focused = false;
  bool scrollable = false;
  bool long_clickable = false;
  bool password = false;
  bool selected = false;
  bool editable = false;  // inferred from the class (EditText and its subclasses)
  // False when the dump says visible-to-user="false" (uiautomator2's all-windows dumps) or
  // displayed="false" (Appium page sources), or when bounds are given but empty (a plain
  // dump reports off-screen WebView content as [0,0][0,0]). Such a node gets no ref and
  // shows no text, desc or state; its visible descendants are still shown.
  bool visible = true;
  // Appium's showing-hint="true": the text attribute holds the field's hint, nothing typed.
  bool showing_hint = false;

  std::uint32_t ref = 0;    // [ref=N] of this node, 0 when it has none
  std::uint32_t depth = 0;  // 0 for the top-level nodes under <hierarchy>
  NodeIndex parent = kNoNode;
  NodeIndex first_child = kNoNode;
  NodeIndex next_sibling = kNoNode;
  NodeIndex subtree_end = 0;      // one past the last descendant
  std::uint32_t extra_begin = 0;  // this node's entries in Snapshot::extra_attributes()
  std::uint32_t extra_end = 0;
};

}  // namespace adbwire::ui
