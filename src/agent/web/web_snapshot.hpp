// A debuggable WebView's content inside the native snapshot: the page's accessibility tree
// (CDP Accessibility.getFullAXTree), with boxes from DOMSnapshot.captureSnapshot mapped from
// CSS pixels to screen pixels through the WebView node's bounds and the page's visual
// viewport (Page.getLayoutMetrics), written as uiautomator <node> elements under the
// WebView's node. The ordinary pipeline then prunes it and gives it refs, tokens and tap
// points like any native element. Internal to the library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "agent/web/devtools_client.hpp"
#include "base/failure.hpp"

namespace adbwire::agent::web {

// What the last merge did, for Page::web_status().
struct MergeReport {
  std::uint32_t webviews = 0;   // WebView nodes in the dump
  std::uint32_t pages = 0;      // of them, filled from a debuggable page
  std::uint32_t web_nodes = 0;  // <node> elements added
  std::string problem;          // why a WebView stayed native-only ("" when none did)
};

// The screen box of a page's element, in CSS pixels of the page and in screen pixels.
struct ViewportMapping {
  double page_x = 0, page_y = 0;   // the visual viewport's top-left, in document CSS pixels
  double scale = 1;                // screen pixels per CSS pixel
  std::int32_t left = 0, top = 0;  // the WebView's top-left on the screen
};

// The class a web node gets ("web." + the AX role) and the attribute naming the element a
// ref points at: "<socket>|<page id>|<backendDOMNodeId>".
inline constexpr std::string_view kWebNodeAttribute = "web-node";

// Adds the content of each WebView of xml (a uiautomator dump) that a debuggable page shows,
// and returns the new XML. xml comes back unchanged when it has no WebView node; a WebView
// whose page cannot be read keeps its native content, and report.problem says why: the native
// snapshot must survive any DevTools failure. Only a failure of the device connection itself
// (device_offline, closed) is set in failure, as the dump's would be; xml comes back unchanged
// then.
std::string merge_webviews(Device& device, std::string xml, Deadline deadline, MergeReport& report,
                           detail::Failure& failure);

// Builds the <node> elements for one page from the three CDP answers (pure; for tests).
// Returns the XML of the children to put under the WebView node, and their count.
std::string web_nodes_xml(const Json& ax_tree, const Json& dom_snapshot,
                          const ViewportMapping& mapping, std::int32_t clip_left,
                          std::int32_t clip_top, std::int32_t clip_right, std::int32_t clip_bottom,
                          std::string_view package, std::string_view node_prefix,
                          std::uint32_t& count);

}  // namespace adbwire::agent::web
