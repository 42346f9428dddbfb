// The WebView bridge's pure parts on hand-made CDP answers: DevTools sockets in
// /proc/net/unix, and the AX tree + layout boxes turned into uiautomator nodes with screen
// bounds, including what a hostile page could send (deep nesting, cycles, junk).
#include "agent/web/web_snapshot.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/ui.hpp"

namespace adbwire::agent::web {
namespace {

Json ax_node(int id, const char* role, const char* name, std::vector<int> children, int backend,
             int parent = 0) {
  Json node = {{"nodeId", std::to_string(id)},
               {"ignored", false},
               {"role", {{"type", "role"}, {"value", role}}},
               {"name", {{"type", "computedString"}, {"value", name}}},
               {"childIds", Json::array()},
               {"backendDOMNodeId", backend}};
  for (int c : children) node["childIds"].push_back(std::to_string(c));
  if (parent != 0) node["parentId"] = std::to_string(parent);
  return node;
}

// A DOM snapshot whose layout gives each backend id the box [x, y, w, h] (CSS px).
Json dom_with(const std::vector<std::pair<int, std::array<double, 4>>>& boxes) {
  Json ids = Json::array(), index = Json::array(), bounds = Json::array();
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    ids.push_back(boxes[i].first);
    index.push_back(i);
    bounds.push_back(
        {boxes[i].second[0], boxes[i].second[1], boxes[i].second[2], boxes[i].second[3]});
  }
  return {{"documents",
           {{{"nodes", {{"backendNodeId", ids}}},
             {"layout", {{"nodeIndex", index}, {"bounds", bounds}}}}}}};
}

// 2 screen px per CSS px, WebView at (100, 50), scrolled 10 CSS px down.
const ViewportMapping kMapping{0, 10, 2, 100, 50};

std::string build(const Json& ax, const Json& dom, std::uint32_t& count) {
  return web_nodes_xml(ax, dom, kMapping, 100, 50, 900, 1050, "com.example", "sock|P1|", count);
}

TEST(DevtoolsSockets, FindsTheThreeKindsInProcNetUnix) {
  const std::string text =
      "Num       RefCount Protocol Flags    Type St Inode Path\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 1 /dev/socket/logdw\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 2 @webview_devtools_remote_4321\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 3 @chrome_devtools_remote\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 4 @com.example.app_devtools_remote\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 5 @webview_devtools_remote_4321\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 6 @jdwp-control\n"
      "garbage line without columns\n";
  const auto sockets = parse_devtools_sockets(text);
  ASSERT_EQ(sockets.size(), 3u);  // the repeated one once
  EXPECT_EQ(sockets[0].name, "webview_devtools_remote_4321");
  EXPECT_EQ(sockets[0].pid, 4321u);
  EXPECT_EQ(sockets[1].package, "com.android.chrome");
  EXPECT_EQ(sockets[2].package, "com.example.app");
}

TEST(WebNodes, BoxesAreMappedToTheScreenAndClippedToTheWebView) {
  Json ax = Json::object();
  ax["nodes"] = Json::array(
      {ax_node(1, "RootWebArea", "Title", {2, 3, 4}, 10), ax_node(2, "button", "OK", {}, 11, 1),
       ax_node(3, "link", "Gone", {}, 12, 1), ax_node(4, "textbox", "Name", {}, 13, 1)});
  ax["nodes"][3]["value"] = {{"type", "string"}, {"value", "Ada"}};
  const Json dom = dom_with({{10, {0, 0, 400, 3000}},
                             {11, {10, 20, 50, 10}},
                             {12, {0, 900, 10, 10}},
                             {13, {0, 480, 400, 40}}});
  std::uint32_t count = 0;
  const std::string xml = build(ax, dom, count);
  EXPECT_EQ(count, 3u);  // the root, the button and the field; the link is below the WebView
  // OK: x 100 + 10*2 = 120 .. 220, y 50 + (20-10)*2 = 70 .. 90.
  EXPECT_NE(xml.find(R"(text="OK" resource-id="" class="web.button")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(bounds="[120,70][220,90]" web-node="sock|P1|11")"), std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("Gone"), std::string::npos) << xml;
  // The field's value is its text and its name the description; it runs past the bottom: clipped.
  EXPECT_NE(
      xml.find(
          R"(text="Ada" resource-id="" class="web.textbox" package="com.example" content-desc="Name")"),
      std::string::npos)
      << xml;
  // y: 50 + (480 - 10) * 2 = 990 .. 1070, cut at the WebView's bottom.
  EXPECT_NE(xml.find(R"(bounds="[100,990][900,1050]")"), std::string::npos) << xml;
}

TEST(WebNodes, TheOrdinaryPipelineGivesThemRolesRefsAndEditability) {
  Json ax = Json::object();
  ax["nodes"] = Json::array(
      {ax_node(1, "RootWebArea", "Shop", {2, 3}, 10), ax_node(2, "button", "Buy", {4}, 11, 1),
       ax_node(3, "searchbox", "Find", {}, 12, 1), ax_node(4, "StaticText", "Buy", {}, 14, 2)});
  const Json dom = dom_with({{10, {0, 0, 400, 400}},
                             {11, {0, 20, 50, 10}},
                             {12, {0, 40, 100, 20}},
                             {14, {0, 20, 50, 10}}});
  std::uint32_t count = 0;
  const std::string children = build(ax, dom, count);
  const std::string dump =
      R"(<?xml version="1.0"?><hierarchy rotation="0"><node class="android.webkit.WebView" package="com.example" bounds="[100,50][900,1050]">)" +
      children + "</node></hierarchy>";
  const ui::Snapshot snapshot = ui::parse_dump(dump);
  const std::string text = snapshot.to_text();
  // The button's own label is not repeated as a Text child (and the bare WebView wrapper
  // collapses into its one child, as any unlabeled wrapper does).
  EXPECT_EQ(text,
            "# app: com.example\n- WebPage \"Shop\":\n  - Button [ref=1] \"Buy\"\n"
            "  - TextInput [ref=2] \"\" (Find)\n")
      << text;
  EXPECT_TRUE(snapshot.node(snapshot.ref(2)->node).editable);
}

TEST(WebNodes, DeepNestingAndCyclesAreWalkedWithoutRecursion) {
  Json nodes = Json::array();
  constexpr int kDepth = 100000;  // a recursive walk would need far more than its stack
  for (int i = 1; i <= kDepth; ++i) {
    nodes.push_back(
        ax_node(i, i == kDepth ? "button" : "group", i == kDepth ? "Deep" : "", {i + 1}, 0, i - 1));
  }
  nodes[0].erase("parentId");
  nodes.push_back(ax_node(kDepth + 1, "group", "", {1}, 0, kDepth));  // a cycle back to the root
  const Json dom = dom_with({{0, {0, 20, 50, 10}}});
  std::uint32_t count = 0;
  Json ax = Json::object();
  ax["nodes"] = std::move(nodes);
  EXPECT_NO_THROW(build(ax, dom, count));
  EXPECT_GE(count, 1u);
}

TEST(WebNodes, JunkGivesNothingRatherThanACrash) {
  std::uint32_t count = 7;
  std::vector<Json> junks = {Json(nullptr), Json::array(), Json::parse(R"({"nodes":3})"),
                             Json::parse(R"({"nodes":[1,"x",null]})"),
                             Json::parse(R"({"nodes":[{"nodeId":1,"role":5,"childIds":"no"}]})")};
  for (const Json& junk : junks) {
    EXPECT_EQ(build(junk, Json::parse(R"({"documents":"none"})"), count), "");
    EXPECT_EQ(count, 0u);
  }
}

}  // namespace
}  // namespace adbwire::agent::web
