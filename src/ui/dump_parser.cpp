// uiautomator XML → flat node tree. pugixml parses the caller's buffer in place; the tree is
// walked iteratively so depth is bounded by memory, not by the stack.
#include <algorithm>
#include <cstring>
#include <utility>

#include "adbwire/error.hpp"
#include "base/number.hpp"
#include "ui/bounds.hpp"
#include "ui/snapshot_impl.hpp"

namespace adbwire::ui {
namespace {

constexpr std::string_view kHierarchyEnd = "</hierarchy>";
constexpr std::size_t kQuotedDeviceText = 200;

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::int32_t to_int(std::string_view s, std::int32_t fallback) noexcept {
  return adbwire::detail::parse_number<std::int32_t>(s).value_or(fallback);
}

bool to_bool(std::string_view s) noexcept { return s == "true"; }

// Stores one attribute in its Node field, or in extras when the Node has no field for it.
void set_attribute(Node& node, std::string_view name, std::string_view value,
                   std::vector<Attribute>& extras) {
  switch (name.size()) {
    case 4:
      if (name == "text") return void(node.text = value);
      if (name == "hint") return void(node.hint = value);
      break;
    case 5:
      if (name == "class") return void(node.class_name = value);
      if (name == "index") return void(node.index = to_int(value, 0));
      break;
    case 6:
      if (name == "bounds") {
        // Unreadable bounds leave has_bounds false and the rectangle empty.
        const std::optional<Bounds> bounds = parse_bounds(value);
        node.has_bounds = bounds.has_value();
        node.bounds = bounds.value_or(Bounds{});
        return;
      }
      break;
    case 7:
      if (name == "package") return void(node.package = value);
      if (name == "checked") return void(node.checked = to_bool(value));
      if (name == "enabled") return void(node.enabled = to_bool(value));
      if (name == "focused") return void(node.focused = to_bool(value));
      break;
    case 8:
      if (name == "password") return void(node.password = to_bool(value));
      if (name == "selected") return void(node.selected = to_bool(value));
      break;
    case 9:
      if (name == "checkable") return void(node.checkable = to_bool(value));
      if (name == "clickable") return void(node.clickable = to_bool(value));
      if (name == "focusable") return void(node.focusable = to_bool(value));
      break;
    case 10:
      if (name == "scrollable") return void(node.scrollable = to_bool(value));
      if (name == "display-id") return void(node.display_id = to_int(value, -1));
      break;
    case 11:
      if (name == "resource-id") return void(node.resource_id = value);
      break;
    case 12:
      if (name == "content-desc") return void(node.content_desc = value);
      break;
    case 13:
      if (name == "drawing-order") return void(node.drawing_order = to_int(value, -1));
      break;
    case 14:
      if (name == "long-clickable") return void(node.long_clickable = to_bool(value));
      break;
    default:
      break;
  }
  extras.push_back({name, value});
}

std::string_view view(const char* s) noexcept { return {s, std::strlen(s)}; }

void read_node(pugi::xml_node element, Node& node, std::vector<Attribute>& extras) {
  node.extra_begin = static_cast<std::uint32_t>(extras.size());
  for (pugi::xml_attribute a = element.first_attribute(); a; a = a.next_attribute()) {
    set_attribute(node, view(a.name()), view(a.value()), extras);
  }
  node.extra_end = static_cast<std::uint32_t>(extras.size());
  // Appium page sources name the element after the class; "class" is usually there too.
  const std::string_view tag = view(element.name());
  if (node.class_name.empty() && tag != "node") node.class_name = tag;
  node.editable = is_editable_class(node.class_name);
  node.role = role_for_class(node.class_name, node.editable, node.checkable);
  for (std::uint32_t k = node.extra_begin; k < node.extra_end; ++k) {
    const Attribute& a = extras[k];
    if ((a.name == "visible-to-user" || a.name == "displayed") && a.value == "false")
      node.visible = false;
    if (a.name == "showing-hint") node.showing_hint = to_bool(a.value);
  }
  if (node.has_bounds && node.bounds.empty()) node.visible = false;
}

// Pre-order walk of the elements under <hierarchy> without recursion.
void build_tree(pugi::xml_node hierarchy, detail::SnapshotState& impl) {
  std::vector<NodeIndex> last_child{kNoNode};  // last node seen at each depth
  std::vector<NodeIndex> open;                 // ancestors of the current element
  pugi::xml_node element = hierarchy.first_child();
  while (element) {
    if (element.type() == pugi::node_element) {
      const auto index = static_cast<NodeIndex>(impl.nodes.size());
      const auto depth = static_cast<std::uint32_t>(open.size());
      Node& node = impl.nodes.emplace_back();
      read_node(element, node, impl.extras);
      impl.elements.push_back(element.internal_object());
      node.depth = depth;
      node.parent = open.empty() ? kNoNode : open.back();
      node.subtree_end = index + 1;
      if (last_child[depth] != kNoNode) {
        impl.nodes[last_child[depth]].next_sibling = index;
      } else if (node.parent != kNoNode) {
        impl.nodes[node.parent].first_child = index;
      }
      if (depth == 0) impl.top_level.push_back(index);
      last_child[depth] = index;
      if (pugi::xml_node child = element.first_child()) {
        open.push_back(index);
        if (last_child.size() <= open.size()) last_child.push_back(kNoNode);
        last_child[open.size()] = kNoNode;
        element = child;
        continue;
      }
    }
    while (!element.next_sibling() && !open.empty()) {
      open.pop_back();
      element = element.parent();
    }
    element = element.next_sibling();
  }
  for (NodeIndex i = static_cast<NodeIndex>(impl.nodes.size()); i-- > 0;) {
    const NodeIndex parent = impl.nodes[i].parent;
    if (parent != kNoNode) {
      impl.nodes[parent].subtree_end =
          std::max(impl.nodes[parent].subtree_end, impl.nodes[i].subtree_end);
    }
  }
}

std::string quote_device_text(std::string_view text) {
  text = trim(text);
  text = text.substr(0, text.find('\n'));
  text = trim(text);
  std::string out = "\"";
  if (text.size() > kQuotedDeviceText) {
    append_escaped(out, text.substr(0, kQuotedDeviceText), 0);
    out += "…";
  } else {
    append_escaped(out, text, 0);
  }
  out += '"';
  return out;
}

// Byte offsets of the newlines of the original text, kept because in-place parsing
// rewrites the buffer before a syntax error is found.
std::vector<std::size_t> newline_offsets(std::string_view text) {
  std::vector<std::size_t> offsets;
  const char* begin = text.data();
  const char* end = begin + text.size();
  for (const char* p = begin; p < end;) {
    const void* hit = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!hit) break;
    const char* nl = static_cast<const char*>(hit);
    offsets.push_back(static_cast<std::size_t>(nl - begin));
    p = nl + 1;
  }
  return offsets;
}

std::string syntax_error(const std::vector<std::size_t>& newlines, std::size_t offset,
                         const char* description) {
  const auto before = std::lower_bound(newlines.begin(), newlines.end(), offset);
  const std::size_t line = static_cast<std::size_t>(before - newlines.begin()) + 1;
  const std::size_t line_start = before == newlines.begin() ? 0 : *(before - 1) + 1;
  return "malformed uiautomator XML at line " + std::to_string(line) + ", column " +
         std::to_string(offset - line_start + 1) + " (byte " + std::to_string(offset) +
         "): " + description + "; the dump is truncated or corrupt, take it again";
}

void fail(std::error_code& error, std::string* detail, std::string message) {
  error = make_error_code(errc::parse_error);
  if (detail) *detail = std::move(message);
}

}  // namespace

Snapshot parse_dump(std::string xml, const SnapshotOptions& options, std::error_code& error,
                    std::string* detail) {
  error.clear();
  if (detail) detail->clear();
  Snapshot snapshot;
  const std::string_view whole = xml;
  if (trim(whole).empty()) {
    fail(error, detail, "empty dump: uiautomator printed nothing; take the snapshot again");
    return snapshot;
  }
  // Anything before the first '<' is device chatter; without any '<' it is all there is,
  // typically "ERROR: could not get idle state." (printed with exit status 0).
  const std::size_t start = whole.find('<');
  if (start == std::string_view::npos) {
    fail(error, detail,
         "uiautomator printed no XML but " + quote_device_text(whole) +
             "; if the screen is animating, wait for it to settle and take the snapshot again");
    return snapshot;
  }
  // `uiautomator dump /dev/tty` prints "UI hierchary dumped to: /dev/tty" after the XML.
  std::size_t end = whole.size();
  if (const auto close = whole.rfind(kHierarchyEnd); close != std::string_view::npos) {
    end = close + kHierarchyEnd.size();
  }

  auto& impl = *snapshot.impl_;
  impl.options = options;
  impl.buffer = std::move(xml);
  const auto newlines = newline_offsets(std::string_view(impl.buffer).substr(0, end));
  constexpr unsigned kParseOptions = pugi::parse_minimal | pugi::parse_escapes | pugi::parse_eol;
  const pugi::xml_parse_result result = impl.document.load_buffer_inplace(
      impl.buffer.data() + start, end - start, kParseOptions, pugi::encoding_utf8);
  if (!result) {
    const std::string message = syntax_error(
        newlines, start + static_cast<std::size_t>(result.offset), result.description());
    snapshot = Snapshot();
    fail(error, detail, message);
    return snapshot;
  }
  const pugi::xml_node root = impl.document.document_element();
  if (std::strcmp(root.name(), "hierarchy") != 0) {
    const std::string message = std::string("not a uiautomator dump: the root element is <") +
                                root.name() + ">, expected <hierarchy>";
    snapshot = Snapshot();
    fail(error, detail, message);
    return snapshot;
  }
  impl.rotation = root.attribute("rotation").as_int(0);
  build_tree(root, impl);
  classify_windows(impl);
  note_hidden_content(impl);
  note_labels(impl);
  assign_refs(impl);
  prune(impl);
  impl.parsed = true;
  return snapshot;
}

Snapshot parse_dump(std::string xml, const SnapshotOptions& options) {
  std::error_code error;
  std::string detail;
  Snapshot snapshot = parse_dump(std::move(xml), options, error, &detail);
  throw_if_error(error, detail);
  return snapshot;
}

}  // namespace adbwire::ui
