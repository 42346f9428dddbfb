#include "mcp/tool_catalog.hpp"

#include <string>
#include <utility>
#include <vector>

namespace adbwire::mcp {
namespace {

struct Hints {
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  bool open_world = false;
};

constexpr Hints kReadOnly{.read_only = true, .destructive = false, .idempotent = true};
constexpr Hints kAction{.read_only = false, .destructive = true, .idempotent = false};
constexpr Hints kNavigation{.read_only = false, .destructive = false, .idempotent = false};

Json tool(const char* name, const char* title, const char* description, Json properties,
          std::vector<std::string> required, Hints hints, bool per_device = true) {
  if (per_device)
    properties["device"] = {
        {"type", "string"},
        {"description",
         "Which device: a target such as tcp:HOST:PORT, HOST:PORT or an adb serial (see the "
         "devices tool). Omit it for the server's default device."}};
  Json schema = {
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(schema)},
          {"annotations",
           {{"title", title},
            {"readOnlyHint", hints.read_only},
            {"destructiveHint", hints.destructive},
            {"idempotentHint", hints.idempotent},
            {"openWorldHint", hints.open_world}}}};
}

Json integer(const char* description, int minimum) {
  return {{"type", "integer"}, {"minimum", minimum}, {"description", description}};
}

Json number(const char* description) { return {{"type", "number"}, {"description", description}}; }

Json boolean(const char* description) {
  return {{"type", "boolean"}, {"description", description}};
}

Json string(const char* description) { return {{"type", "string"}, {"description", description}}; }

Json ref_property(const char* what) { return integer(what, 1); }

Json point_properties(Json properties) {
  properties["x"] = number("Horizontal position in pixels (or 0..1 with normalized).");
  properties["y"] = number("Vertical position in pixels (or 0..1 with normalized).");
  properties["normalized"] =
      boolean("true: x and y are fractions 0..1 of the screen's width and height.");
  return properties;
}

}  // namespace

Json tool_definitions(bool allow_shell) {
  Json tools = Json::array();
  tools.push_back(tool(
      "devices", "List devices",
      "List the Android devices this server can reach: the ones a running adb server lists and "
      "the ones this server is connected to. Pass a listed serial or target as `device` to any "
      "other tool to drive that device.",
      Json::object(), {},
      {.read_only = true, .destructive = false, .idempotent = true, .open_world = true}, false));
  tools.push_back(tool(
      "connect", "Connect to a device",
      "Connect to a device and keep the connection for later calls. Other tools connect on "
      "first use, so call this only to check that a target answers or to learn its model and "
      "Android version. If the phone shows an 'Allow USB debugging?' prompt, ask the person to "
      "accept it.",
      {{"target", string("tcp:HOST:PORT, HOST:PORT, an adb serial (through the adb server) or "
                         "server:HOST:PORT/SERIAL.")}},
      {"target"},
      {.read_only = false, .destructive = false, .idempotent = true, .open_world = true}, false));
  tools.push_back(tool(
      "snapshot", "Read the screen",
      "Read the current screen as an accessibility tree, one element per line: "
      "`- Role [ref=N] \"text\" (description) [states]`, indented by depth. Elements you can "
      "tap, type into or scroll carry [ref=N]; pass N to tap, type, scroll or long_press. Refs "
      "belong to the latest snapshot only: take a new one after the screen changes. A screen "
      "too large for the reply is saved to a file and summarized (use find, or interactive / "
      "compact / max_depth, to see less).",
      {{"interactive", boolean("Hide text that is not part of an element with a ref.")},
       {"compact", boolean("Skip unlabeled groups and cut long text (for very large screens).")},
       {"max_depth",
        integer("Print at most this many levels (0: all); refs keep their numbers.", 0)}},
      {}, kReadOnly));
  tools.push_back(tool(
      "tap", "Tap",
      "Tap an element by its ref from the latest snapshot, or a point (x, y). A ref is first "
      "checked against the current screen: if its element moved away or became ambiguous, "
      "nothing is tapped and the error says to take a new snapshot.",
      point_properties({{"ref", ref_property("The element's [ref=N] from the latest snapshot.")}}),
      {}, kAction));
  tools.push_back(tool(
      "type", "Type text",
      "Type text into an editable element (a TextInput) by ref: taps it to focus, then types. "
      "Spaces, quotes and shell characters are typed literally; '\\n' presses Enter. Non-ASCII "
      "text needs the server's --helper (it pastes through the clipboard) or the ADBKeyBoard input "
      "method on the device (the error says so).",
      {{"ref", ref_property("The TextInput's [ref=N] from the latest snapshot.")},
       {"text", string("The text to type.")},
       {"clear", boolean("Delete the field's current text first.")},
       {"submit", boolean("Press Enter after the text (search boxes, chat inputs).")}},
      {"ref", "text"}, kAction));
  tools.push_back(
      tool("press", "Press a key",
           "Press a key: back, home, enter, delete, tab, escape, up, down, left, right, space, "
           "power, volup, voldown, recent, menu, paste, a KEYCODE_* name or a key code number.",
           {{"key", string("The key's name or number, for example enter.")}}, {"key"}, kAction));
  tools.push_back(tool(
      "scroll", "Scroll",
      "Scroll a scrollable element (ref) or, without ref, the middle of the screen, so that the "
      "content lying in `direction` comes into view (down shows what is below). Take a new "
      "snapshot afterwards to see it.",
      {{"ref", ref_property("A scrollable element's [ref=N]; omit it to scroll the screen.")},
       {"direction",
        {{"type", "string"},
         {"enum", {"up", "down", "left", "right"}},
         {"description", "Where the content you want to see lies."}}}},
      {"direction"}, kNavigation));
  tools.push_back(
      tool("swipe", "Swipe",
           "Swipe from one point to another (pixels, or fractions 0..1 with normalized). For lists "
           "prefer scroll, which aims inside the element.",
           {{"from_x", number("Start x.")},
            {"from_y", number("Start y.")},
            {"to_x", number("End x.")},
            {"to_y", number("End y.")},
            {"normalized", boolean("true: coordinates are fractions 0..1 of the screen.")},
            {"duration_ms", integer("How long the swipe takes (default 300).", 1)}},
           {"from_x", "from_y", "to_x", "to_y"}, kAction));
  tools.push_back(tool(
      "long_press", "Long-press",
      "Press and hold (1 s) an element by ref, or a point (x, y): opens context menus, starts "
      "selection or drag modes.",
      point_properties({{"ref", ref_property("The element's [ref=N] from the latest snapshot.")}}),
      {}, kAction));
  tools.push_back(
      tool("launch", "Launch an app",
           "Start an app by package name (for example com.android.settings) through its launcher "
           "entry, or a given activity. Use shell `pm list packages` (when offered) or ask for the "
           "package name when unsure.",
           {{"package", string("The app's package name.")},
            {"activity",
             string("An activity to start instead of the launcher entry, such as .MainActivity.")}},
           {"package"}, kAction));
  tools.push_back(
      tool("back", "Go back",
           "Press the Back key: leaves the current screen or closes a dialog or the keyboard.",
           Json::object(), {}, kNavigation));
  tools.push_back(tool("home", "Go home", "Press the Home key: shows the launcher.", Json::object(),
                       {}, kNavigation));
  tools.push_back(tool(
      "screenshot", "Take a screenshot",
      "Capture the screen as an image, scaled to at most 2000 px a side and under 1 MB. Prefer "
      "snapshot to find and act on elements (it is smaller and gives refs); use a screenshot "
      "when appearance matters: images, colours, layout, content missing from the tree.",
      {{"format",
        {{"type", "string"},
         {"enum", {"png", "jpeg"}},
         {"description", "png (default, exact) or jpeg (smaller, for photos)."}}},
       {"quality", integer("JPEG quality 1..100 (default 80).", 1)},
       {"max_side", integer("Longest side in pixels, at most 2000 (default 2000).", 16)}},
      {}, kReadOnly));
  tools.push_back(tool(
      "wait_for_text", "Wait for text",
      "Take snapshots until an element whose resource-id, text or description matches appears "
      "(exact first, then case-insensitive substring), then return that snapshot (its refs are "
      "current). Use after an action that loads something. Errors after timeout_ms.",
      {{"text", string("The text, description or resource-id to wait for.")},
       {"timeout_ms", integer("How long to wait (default 10000, at most 120000).", 1)}},
      {"text"}, kReadOnly));
  tools.push_back(
      tool("find", "Find elements",
           "Take a fresh snapshot and list the elements matching text, id (resource-id) or desc "
           "(content description); several criteria must all match. Matching is a case-insensitive "
           "substring unless exact is true. Each match shows its ref (when it has one), role, text "
           "and centre, so you can tap the ref or the centre point.",
           {{"text", string("Text shown by the element.")},
            {"id", string("Resource id, such as com.example:id/submit or just submit.")},
            {"desc", string("Content description (accessibility label).")},
            {"exact", boolean("Match whole values only.")}},
           {}, kReadOnly));
  tools.push_back(tool(
      "webviews", "List web pages",
      "List the debuggable WebViews and browser tabs on the device (debug builds, apps that enable "
      "WebView debugging, Chrome): type, title, URL and app. The visible ones already appear "
      "inside "
      "snapshot, under their WebView, with refs you can tap and type into.",
      Json::object(), {}, kReadOnly));
  if (allow_shell) {
    tools.push_back(tool(
        "shell", "Run a shell command",
        "Run a command in the device's shell (sh -c, as `adb shell`) and return its exit code, "
        "stdout and stderr. Offered because the server was started with --allow-shell: it can "
        "change anything the shell user can.",
        {{"command", string("The command line, for example `pm list packages`.")},
         {"timeout_ms", integer("How long it may run (default 30000, at most 120000).", 1)}},
        {"command"},
        {.read_only = false, .destructive = true, .idempotent = false, .open_world = true}));
  }
  return tools;
}

}  // namespace adbwire::mcp
