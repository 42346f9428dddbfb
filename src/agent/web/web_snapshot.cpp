#include "agent/web/web_snapshot.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/ui_node.hpp"
#include "ui/bounds.hpp"

namespace adbwire::agent::web {
namespace {

using ui::Bounds;

// AX roles that are only structure: their children move up to the nearest kept ancestor.
bool is_wrapper_role(std::string_view role) {
  return role == "generic" || role == "none" || role == "presentation" || role == "InlineTextBox" ||
         role == "LineBreak" || role == "LabelText" || role == "paragraph" || role == "Section" ||
         role == "Iframe" || role == "IframePresentational" || role == "GenericContainer";
}

// Roles a person taps or types into: they get refs (clickable), as native buttons do.
bool is_interactive_role(std::string_view role) {
  static const std::unordered_set<std::string_view> kRoles = {
      "button",        "link",    "checkbox", "radio",     "switch",
      "combobox",      "listbox", "option",   "menuitem",  "menuitemcheckbox",
      "menuitemradio", "tab",     "textbox",  "searchbox", "spinbutton",
      "slider"};
  return kRoles.contains(role);
}

bool is_field_role(std::string_view role) {
  return role == "textbox" || role == "searchbox" || role == "combobox" || role == "spinbutton";
}

// holder[key] when holder is an object that has it, else null: page data of the wrong shape
// reads as absent instead of throwing.
const Json& member(const Json& holder, const char* key) {
  static const Json kNull;
  if (!holder.is_object()) return kNull;
  const auto it = holder.find(key);
  return it == holder.end() ? kNull : *it;
}

std::string string_value(const Json& holder, const char* field) {
  const auto it = holder.find(field);
  if (it == holder.end() || !it->is_object()) return {};
  const auto value = it->find("value");
  if (value == it->end()) return {};
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number() || value->is_boolean()) return value->dump();
  return {};
}

// The AX property `name`, as text ("true", "false", "mixed", …); "" when absent.
std::string property(const Json& node, std::string_view name) {
  const auto properties = node.find("properties");
  if (properties == node.end() || !properties->is_array()) return {};
  for (const Json& p : *properties) {
    if (!member(p, "name").is_string() || member(p, "name").get<std::string>() != name) continue;
    return string_value(p, "value");
  }
  return {};
}

struct Box {
  double x = 0, y = 0, width = 0, height = 0;
};

// backendNodeId -> layout box (document CSS pixels) of the main frame's DOM snapshot.
std::unordered_map<std::int64_t, Box> layout_boxes(const Json& dom_snapshot) {
  std::unordered_map<std::int64_t, Box> boxes;
  const Json& documents = member(dom_snapshot, "documents");
  if (!documents.is_array() || documents.empty()) return boxes;
  const Json& document = documents[0];
  const Json& ids = member(member(document, "nodes"), "backendNodeId");
  const Json& layout = member(document, "layout");
  const Json& node_index = member(layout, "nodeIndex");
  const Json& bounds = member(layout, "bounds");
  if (!ids.is_array() || !node_index.is_array() || !bounds.is_array()) return boxes;
  const std::size_t n = std::min(node_index.size(), bounds.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!node_index[i].is_number_integer()) continue;
    const auto index = node_index[i].get<std::int64_t>();
    if (index < 0 || static_cast<std::size_t>(index) >= ids.size() ||
        !ids[index].is_number_integer())
      continue;
    const Json& b = bounds[i];
    if (!b.is_array() || b.size() < 4 || !b[0].is_number() || !b[1].is_number() ||
        !b[2].is_number() || !b[3].is_number())
      continue;
    boxes.emplace(ids[index].get<std::int64_t>(), Box{b[0].get<double>(), b[1].get<double>(),
                                                      b[2].get<double>(), b[3].get<double>()});
  }
  return boxes;
}

std::string bounds_text(const Bounds& r) {
  return "[" + std::to_string(r.left) + "," + std::to_string(r.top) + "][" +
         std::to_string(r.right) + "," + std::to_string(r.bottom) + "]";
}

class NodeWriter {
 public:
  NodeWriter(const ViewportMapping& mapping, Bounds clip, std::string package, std::string prefix,
             std::string url, std::unordered_map<std::int64_t, Box> boxes)
      : mapping_(mapping),
        clip_(clip),
        package_(std::move(package)),
        prefix_(std::move(prefix)),
        url_(std::move(url)),
        boxes_(std::move(boxes)) {}

  // Appends the page's tree under parent, walking the AX tree with an explicit stack (a
  // hostile page cannot overflow ours with deep nesting).
  std::uint32_t write(const Json& ax_tree, pugi::xml_node parent) {
    const Json& nodes = member(ax_tree, "nodes");
    if (!nodes.is_array() || nodes.empty()) return 0;
    std::unordered_map<std::string, const Json*> by_id;
    const Json* root = nullptr;
    for (const Json& node : nodes) {
      if (!node.is_object()) continue;
      const std::string id = node.contains("nodeId") ? string_of(node["nodeId"]) : std::string();
      if (id.empty()) continue;
      by_id.emplace(id, &node);
      if (root == nullptr && !node.contains("parentId")) root = &node;
    }
    if (root == nullptr) return 0;
    struct Item {
      const Json* ax;
      pugi::xml_node parent;
      std::string parent_name;
    };
    std::vector<Item> stack{{root, parent, {}}};
    std::unordered_set<const Json*> seen;  // a malformed tree with cycles is walked once
    std::uint32_t written = 0;
    while (!stack.empty()) {
      Item item = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(item.ax).second) continue;
      const Json& ax = *item.ax;
      const std::string role = string_value(ax, "role");
      const std::string name = string_value(ax, "name");
      pugi::xml_node into = item.parent;
      std::string name_for_children = item.parent_name;
      const bool ignored = member(ax, "ignored").is_boolean() && member(ax, "ignored").get<bool>();
      if (!ignored && !is_wrapper_role(role) && !role.empty()) {
        if (role == "StaticText") {
          // Text that only repeats its parent's name (a button's label) adds nothing.
          if (!name.empty() && name != item.parent_name &&
              write_element(ax, role, name, item.parent))
            ++written;
          continue;  // its InlineTextBox children are layout detail
        }
        pugi::xml_node element = write_element(ax, role, name, item.parent);
        if (!element) continue;  // off screen: so is what it contains
        ++written;
        into = element;
        if (!name.empty()) name_for_children = name;
      }
      const auto children = ax.find("childIds");
      if (children == ax.end() || !children->is_array()) continue;
      // Pushed in reverse so they come off the stack in document order.
      for (auto child = children->rbegin(); child != children->rend(); ++child) {
        const auto found = by_id.find(string_of(*child));
        if (found != by_id.end()) stack.push_back({found->second, into, name_for_children});
      }
    }
    remove_empty_containers(parent);
    return written;
  }

 private:
  static std::string string_of(const Json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
    return {};
  }

  // The element's box on the screen, clipped to the WebView; nullopt when it has no box,
  // std::optional with an empty Bounds when it lies outside the WebView.
  std::optional<Bounds> screen_box(const Json& ax) const {
    const auto id = ax.find("backendDOMNodeId");
    if (id == ax.end() || !id->is_number_integer()) return std::nullopt;
    const auto box = boxes_.find(id->get<std::int64_t>());
    if (box == boxes_.end() || box->second.width <= 0 || box->second.height <= 0)
      return std::nullopt;
    const Box& b = box->second;
    const auto to_x = [&](double x) {
      return mapping_.left + (x - mapping_.page_x) * mapping_.scale;
    };
    const auto to_y = [&](double y) {
      return mapping_.top + (y - mapping_.page_y) * mapping_.scale;
    };
    Bounds r{static_cast<std::int32_t>(std::lround(to_x(b.x))),
             static_cast<std::int32_t>(std::lround(to_y(b.y))),
             static_cast<std::int32_t>(std::lround(to_x(b.x + b.width))),
             static_cast<std::int32_t>(std::lround(to_y(b.y + b.height)))};
    r.left = std::max(r.left, clip_.left);
    r.top = std::max(r.top, clip_.top);
    r.right = std::min(r.right, clip_.right);
    r.bottom = std::min(r.bottom, clip_.bottom);
    return r;
  }

  pugi::xml_node write_element(const Json& ax, const std::string& role, const std::string& name,
                               pugi::xml_node parent) {
    const std::optional<Bounds> box = screen_box(ax);
    const bool interactive = is_interactive_role(role);
    // Off screen (scrolled away): nothing an agent can see or tap.
    if (box && box->empty()) return {};
    // An element with no box cannot be tapped; a structural one may still hold visible ones.
    if (!box && (interactive || role == "StaticText")) return {};
    pugi::xml_node element = parent.append_child("node");
    const std::string value = string_value(ax, "value");
    const bool field = is_field_role(role);
    const std::string checked = property(ax, "checked");
    const auto flag = [](bool on) { return on ? "true" : "false"; };
    element.append_attribute("index") = 0;
    element.append_attribute("text") = (field ? value : name).c_str();
    element.append_attribute("resource-id") = "";
    element.append_attribute("class") = ("web." + role).c_str();
    element.append_attribute("package") = package_.c_str();
    element.append_attribute("content-desc") = (field || role == "image" || role == "img" ? name
                                                : role == "RootWebArea"                   ? url_
                                                                        : std::string())
                                                   .c_str();
    element.append_attribute("checkable") =
        flag(role == "checkbox" || role == "radio" || role == "switch" ||
             role == "menuitemcheckbox" || role == "menuitemradio");
    element.append_attribute("checked") = flag(checked == "true" || checked == "mixed");
    element.append_attribute("clickable") = flag(interactive);
    element.append_attribute("enabled") = flag(property(ax, "disabled") != "true");
    element.append_attribute("focusable") = flag(property(ax, "focusable") == "true");
    element.append_attribute("focused") = flag(property(ax, "focused") == "true");
    element.append_attribute("scrollable") = "false";
    element.append_attribute("long-clickable") = "false";
    element.append_attribute("password") = "false";
    element.append_attribute("selected") = flag(property(ax, "selected") == "true");
    if (box) element.append_attribute("bounds") = bounds_text(*box).c_str();
    const auto id = ax.find("backendDOMNodeId");
    if (id != ax.end() && id->is_number_integer()) {
      element.append_attribute(std::string(kWebNodeAttribute).c_str()) =
          (prefix_ + std::to_string(id->get<std::int64_t>())).c_str();
    }
    return element;
  }

  // Structural nodes with no box whose children were all off screen say nothing.
  static void remove_empty_containers(pugi::xml_node root) {
    std::vector<pugi::xml_node> order;
    std::vector<pugi::xml_node> stack{root};
    while (!stack.empty()) {
      pugi::xml_node n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling()) stack.push_back(c);
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      pugi::xml_node n = *it;
      if (n == root || n.first_child() || n.attribute("bounds")) continue;
      n.parent().remove_child(n);
    }
  }

  ViewportMapping mapping_;
  Bounds clip_;
  std::string package_;
  std::string prefix_;
  std::string url_;  // the page's, shown as the root's description
  std::unordered_map<std::int64_t, Box> boxes_;
};

// The visual viewport from Page.getLayoutMetrics (cssVisualViewport on current Chrome,
// visualViewport before it), mapped onto the WebView's bounds. protocol_error when the page
// gave none.
ViewportMapping mapping_for(const Json& metrics, const Bounds& webview, detail::Failure& failure) {
  const Json* viewport = nullptr;
  for (const char* key : {"cssVisualViewport", "visualViewport"}) {
    if (const auto it = metrics.find(key); it != metrics.end() && it->is_object()) {
      viewport = &*it;
      break;
    }
  }
  if (viewport == nullptr || !viewport->contains("clientWidth") ||
      !(*viewport)["clientWidth"].is_number() || (*viewport)["clientWidth"].get<double>() <= 0) {
    failure.set(errc::protocol_error,
                "Page.getLayoutMetrics gave no visual viewport: " + metrics.dump().substr(0, 160));
    return {};
  }
  ViewportMapping mapping;
  mapping.page_x =
      member(*viewport, "pageX").is_number() ? (*viewport)["pageX"].get<double>() : 0.0;
  mapping.page_y =
      member(*viewport, "pageY").is_number() ? (*viewport)["pageY"].get<double>() : 0.0;
  mapping.scale =
      static_cast<double>(webview.right - webview.left) / (*viewport)["clientWidth"].get<double>();
  mapping.left = webview.left;
  mapping.top = webview.top;
  return mapping;
}

// The page a WebView node shows: of the socket's "page" targets, the one whose screen
// rectangle overlaps the node most, else a visible one, else the first that is not blank.
const WebViewPage* choose_page(const std::vector<WebViewPage>& pages, const Bounds& node) {
  const WebViewPage* best = nullptr;
  double best_score = -1;
  for (const WebViewPage& page : pages) {
    if (page.type != "page") continue;
    double score = page.url == "about:blank" ? 0 : 1;
    if (page.visible) score += 2;
    if (page.has_screen_rect) {
      const double w = std::min<double>(node.right, page.screen_x + page.width) -
                       std::max<double>(node.left, page.screen_x);
      const double h = std::min<double>(node.bottom, page.screen_y + page.height) -
                       std::max<double>(node.top, page.screen_y);
      if (w > 0 && h > 0) score += 4 + w * h / 1e9;
    }
    if (score > best_score) {
      best = &page;
      best_score = score;
    }
  }
  return best;
}

bool connection_lost(const detail::Failure& failure) {
  return failure.code == errc::device_offline || failure.code == errc::closed;
}

// The content of one WebView's page as <node> elements under holder; false, with problem set,
// when the page cannot be read. failure only for a lost connection.
bool read_page(Device& device, const WebViewPage& page, const Bounds& bounds,
               const std::string& package, Deadline deadline, pugi::xml_node holder,
               std::string& problem, detail::Failure& failure) {
  detail::Failure cdp;
  CdpSession session = CdpSession::connect(device, page.socket, page.id, deadline, cdp);
  Json ax, dom, metrics;
  if (!cdp) ax = session.call("Accessibility.getFullAXTree", Json::object(), deadline, cdp);
  if (!cdp) {
    dom = session.call("DOMSnapshot.captureSnapshot", {{"computedStyles", Json::array()}}, deadline,
                       cdp);
  }
  if (!cdp) metrics = session.call("Page.getLayoutMetrics", Json::object(), deadline, cdp);
  // uiautomator's bounds are the visible part; a WebView in a ScrollView or taller than the
  // screen starts elsewhere, and its own description in /json/list says where.
  Bounds whole = bounds;
  if (page.has_screen_rect && page.width > 0 && page.height > 0)
    whole = {page.screen_x, page.screen_y, page.screen_x + page.width, page.screen_y + page.height};
  const ViewportMapping mapping = cdp ? ViewportMapping() : mapping_for(metrics, whole, cdp);
  if (cdp) {
    problem =
        "the WebView of " + package + " stays native only: " + Error(cdp.code, cdp.detail).what();
    if (connection_lost(cdp)) failure = std::move(cdp);
    return false;
  }
  NodeWriter writer(mapping, bounds, package, page.socket + "|" + page.id + "|", page.url,
                    layout_boxes(dom));
  writer.write(ax, holder);
  return true;
}

}  // namespace

std::string web_nodes_xml(const Json& ax_tree, const Json& dom_snapshot,
                          const ViewportMapping& mapping, std::int32_t clip_left,
                          std::int32_t clip_top, std::int32_t clip_right, std::int32_t clip_bottom,
                          std::string_view package, std::string_view node_prefix,
                          std::uint32_t& count) {
  pugi::xml_document doc;
  pugi::xml_node holder = doc.append_child("node");
  NodeWriter writer(mapping, {clip_left, clip_top, clip_right, clip_bottom}, std::string(package),
                    std::string(node_prefix), std::string(), layout_boxes(dom_snapshot));
  writer.write(ax_tree, holder);
  count = static_cast<std::uint32_t>(holder.select_nodes(".//node").size());
  std::ostringstream out;
  for (pugi::xml_node child = holder.first_child(); child; child = child.next_sibling()) {
    child.print(out, "", pugi::format_raw);
  }
  return out.str();
}

std::string merge_webviews(Device& device, std::string xml, Deadline deadline, MergeReport& report,
                           detail::Failure& failure) {
  report = {};
  if (xml.find("android.webkit.WebView") == std::string::npos) return xml;
  std::size_t begin = xml.find("<?xml");
  if (begin == std::string::npos) begin = xml.find("<hierarchy");
  std::size_t end = xml.rfind("</hierarchy>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return xml;
  end += std::string_view("</hierarchy>").size();
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data() + begin, end - begin, pugi::parse_default, pugi::encoding_utf8))
    return xml;
  const pugi::xpath_node_set webviews = doc.select_nodes("//node[@class='android.webkit.WebView']");
  report.webviews = static_cast<std::uint32_t>(webviews.size());
  if (webviews.empty()) return xml;

  detail::Failure listing;
  const std::vector<DevtoolsSocket> sockets = find_devtools_sockets(device, deadline, listing);
  if (listing) {
    report.problem = std::string("cannot list the device's DevTools sockets: ") +
                     Error(listing.code, listing.detail).what();
    if (connection_lost(listing)) failure = std::move(listing);
    return xml;
  }
  if (sockets.empty()) {
    report.problem =
        "no WebView on the screen is debuggable (no DevTools socket in /proc/net/unix): a WebView "
        "is "
        "debuggable in debug builds, after WebView.setWebContentsDebuggingEnabled(true), and in "
        "Chrome";
    return xml;
  }
  std::unordered_map<std::string, std::vector<WebViewPage>> pages_of;  // by socket name, read once
  for (const pugi::xpath_node& found : webviews) {
    pugi::xml_node webview = found.node();
    const std::optional<Bounds> bounds = ui::parse_bounds(webview.attribute("bounds").as_string());
    if (!bounds || bounds->empty()) continue;
    const std::string package = webview.attribute("package").as_string();
    std::vector<WebViewPage> candidates;
    for (const DevtoolsSocket& socket : sockets) {
      if (!socket.package.empty() && socket.package != package) continue;
      auto cached = pages_of.find(socket.name);
      if (cached == pages_of.end()) {
        detail::Failure unread;
        std::vector<WebViewPage> pages = list_pages(device, socket, deadline, unread);
        if (unread) {
          report.problem = Error(unread.code, unread.detail).what();
          if (connection_lost(unread)) {
            failure = std::move(unread);
            return xml;
          }
        }
        cached = pages_of.emplace(socket.name, std::move(pages)).first;
      }
      candidates.insert(candidates.end(), cached->second.begin(), cached->second.end());
    }
    const WebViewPage* page = choose_page(candidates, *bounds);
    if (page == nullptr) {
      if (report.problem.empty())
        report.problem = "no debuggable page for the WebView of " + package;
      continue;
    }
    try {
      // Built aside and swapped in only when complete: a failure leaves the native children.
      pugi::xml_document built;
      pugi::xml_node holder = built.append_child("node");
      if (!read_page(device, *page, *bounds, package, deadline, holder, report.problem, failure)) {
        if (failure) return xml;
        continue;
      }
      const auto count = static_cast<std::uint32_t>(holder.select_nodes(".//node").size());
      if (count == 0) {
        report.problem = "the page of the WebView of " + package +
                         " gave no accessibility tree; its native content is shown";
        continue;
      }
      while (webview.first_child()) webview.remove_child(webview.first_child());
      for (pugi::xml_node child = holder.first_child(); child; child = child.next_sibling()) {
        webview.append_copy(child);
      }
      report.web_nodes += count;
      ++report.pages;
    } catch (const Json::exception& e) {
      // nlohmann::json's own exceptions, for page data of a shape the checks above missed.
      report.problem = "the WebView of " + package +
                       " stays native only: its page sent CDP data of an unexpected shape (" +
                       e.what() + ")";
    }
  }
  if (report.pages == 0) return xml;
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw);
  return out.str();
}

}  // namespace adbwire::agent::web
