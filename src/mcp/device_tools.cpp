#include "mcp/device_tools.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/ui.hpp"
#include "adbwire/webview.hpp"
#include "base/base64.hpp"
#include "base/private_files.hpp"
#include "mcp/tool_catalog.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::size_t kMaxFindMatches = 50;
constexpr auto kWaitPause = 300ms;

// What an error says to act on: an adbwire::Error's detail(); another system_error's what().
std::string detail_of(const std::system_error& e) {
  if (const auto* ours = dynamic_cast<const Error*>(&e)) return ours->detail();
  return e.what();
}

Json text_block(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

Json result(Json content, bool is_error = false) {
  return {{"content", std::move(content)}, {"isError", is_error}};
}

Json text_result(std::string text, bool is_error = false) {
  return result(Json::array({text_block(std::move(text))}), is_error);
}

// What to do about a failure, appended where the library's message does not say it already.
std::string advice(const Error& e, const std::string& device) {
  std::string message = detail_of(e);
  const auto add = [&message](std::string_view hint) {
    if (!message.ends_with('.')) message += '.';
    message += ' ';
    message += hint;
  };
  const bool mentions_snapshot = message.find("snapshot") != std::string::npos;
  switch (static_cast<errc>(e.code().value())) {
    case errc::stale_ref:
    case errc::not_found:
      if (!mentions_snapshot) add("Take a new snapshot to see what is on the screen now.");
      break;
    case errc::device_offline:
    case errc::closed:
      add("The connection to " + (device.empty() ? std::string("the device") : device) +
          " was lost; the next call reconnects (check the cable or network if it fails again).");
      break;
    case errc::timeout:
      add("The device did not finish in time: check that it is awake and responsive, then retry.");
      break;
    case errc::connection_refused:
      add("Check the address, that the device is on and that wireless debugging (or `adb "
          "tcpip`) is enabled; the devices tool lists what is reachable.");
      break;
    default:
      break;
  }
  return message;
}

std::string in_quotes(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string format_number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e9)
    return std::to_string(static_cast<long long>(value));
  std::string text = std::to_string(value);
  while (text.ends_with('0')) text.pop_back();
  return text;
}

// A tool's arguments, checked against the names its schema declares; the checks raise
// invalid_argument with a message that names the argument and what it should be.
class Args {
 public:
  Args(const Json& arguments, const Json& definition) : arguments_(arguments) {
    const Json& properties = definition["inputSchema"]["properties"];
    for (const auto& [name, value] : arguments.items()) {
      if (properties.contains(name)) continue;
      std::string known;
      for (const auto& [property, schema] : properties.items()) {
        known += known.empty() ? "" : ", ";
        known += property;
      }
      throw Error(errc::invalid_argument,
                  "unknown argument '" + name + "'; this tool takes " +
                      (known.empty() ? std::string("no arguments") : known));
    }
  }

  std::optional<std::string> string(const char* name) const {
    const Json* value = find(name);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) fail(name, "a string");
    return value->get<std::string>();
  }

  std::string required_string(const char* name) const {
    std::optional<std::string> value = string(name);
    if (!value) missing(name);
    return *value;
  }

  std::optional<std::int64_t> integer(const char* name, std::int64_t minimum,
                                      std::int64_t maximum) const {
    const Json* value = find(name);
    if (value == nullptr) return std::nullopt;
    const std::string range =
        "an integer " + std::to_string(minimum) + ".." + std::to_string(maximum);
    if (value->is_number_integer()) {
      const std::int64_t n = value->is_number_unsigned() && value->get<std::uint64_t>() >
                                                                static_cast<std::uint64_t>(maximum)
                                 ? maximum + 1
                                 : value->get<std::int64_t>();
      if (n < minimum || n > maximum) fail(name, range);
      return n;
    }
    // Some clients send whole numbers as 5.0.
    if (value->is_number_float()) {
      const double d = value->get<double>();
      if (d == std::floor(d) && d >= static_cast<double>(minimum) &&
          d <= static_cast<double>(maximum))
        return static_cast<std::int64_t>(d);
    }
    fail(name, range);
  }

  std::optional<double> number(const char* name) const {
    const Json* value = find(name);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number() || !std::isfinite(value->get<double>())) fail(name, "a number");
    return value->get<double>();
  }

  double required_number(const char* name) const {
    std::optional<double> value = number(name);
    if (!value) missing(name);
    return *value;
  }

  bool flag(const char* name) const {
    const Json* value = find(name);
    if (value == nullptr) return false;
    if (!value->is_boolean()) fail(name, "true or false");
    return value->get<bool>();
  }

  // ref (from the latest snapshot) or x and y; nullopt for each part that is absent.
  std::optional<std::uint32_t> ref() const {
    const std::optional<std::int64_t> ref =
        integer("ref", 1, std::numeric_limits<std::uint32_t>::max());
    return ref ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*ref)) : std::nullopt;
  }

  std::optional<ScreenPoint> point() const {
    const std::optional<double> x = number("x");
    const std::optional<double> y = number("y");
    if (!x && !y) return std::nullopt;
    if (!x || !y) throw Error(errc::invalid_argument, "give both x and y for a point");
    return ScreenPoint{*x, *y, flag("normalized")};
  }

 private:
  const Json* find(const char* name) const {
    const auto it = arguments_.find(name);
    return it == arguments_.end() || it->is_null() ? nullptr : &*it;
  }
  [[noreturn]] static void fail(const char* name, const std::string& what) {
    throw Error(errc::invalid_argument, std::string("argument '") + name + "' must be " + what);
  }
  [[noreturn]] static void missing(const char* name) {
    throw Error(errc::invalid_argument, std::string("argument '") + name + "' is required");
  }

  const Json& arguments_;
};

Direction direction_of(const std::string& name) {
  if (name == "up") return Direction::up;
  if (name == "down") return Direction::down;
  if (name == "left") return Direction::left;
  if (name == "right") return Direction::right;
  throw Error(errc::invalid_argument, "direction '" + name + "': use up, down, left or right");
}

}  // namespace

// One tools/call: its arguments, its device and the steps of the tool it names.
class DeviceTools::Call {
 public:
  Call(DeviceTools& tools, const Json& definition, const Json& arguments, const CancelToken& cancel)
      : tools_(tools), args_(arguments, definition), cancel_(cancel) {
    if (definition["inputSchema"]["properties"].contains("device"))
      device_ = args_.string("device").value_or("");
  }

  const std::string& device() const { return device_; }

  Json run(const std::string& name) {
    cancel_.check();
    if (name == "devices") return devices();
    if (name == "connect") return connect();
    if (name == "snapshot") return snapshot();
    if (name == "tap") return tap(false);
    if (name == "long_press") return tap(true);
    if (name == "type") return type();
    if (name == "press") return press();
    if (name == "scroll") return scroll();
    if (name == "swipe") return swipe();
    if (name == "launch") return launch();
    if (name == "back") return key_action("back", [](Page& page) { page.back(); });
    if (name == "home") return key_action("home", [](Page& page) { page.home(); });
    if (name == "screenshot") return take_screenshot();
    if (name == "wait_for_text") return wait_for_text();
    if (name == "find") return find();
    if (name == "webviews") return webviews();
    if (name == "shell") return shell();
    throw RpcError(kInvalidParams, "unknown tool '" + name + "'");
  }

 private:
  Page& page() { return tools_.page(device_); }

  Json devices() {
    std::string text;
    std::error_code error;
    const AdbServer server(tools_.options_.connect.server, 3s, error);
    std::vector<protocol::DeviceEntry> entries;
    if (!error) entries = server.devices(true, deadline_after(3s), error);
    if (error) {
      text += "No adb server answered (" + error.message() +
              "); that is fine for direct tcp: targets, which need none.\n";
    } else {
      text += "adb server " + to_string(server.address()) + ":\n";
      if (entries.empty()) text += "  (no devices)\n";
      for (const protocol::DeviceEntry& entry : entries) {
        text += "  " + entry.serial + "  " + entry.state_text;
        if (!entry.model.empty()) text += "  model:" + entry.model;
        text += '\n';
      }
    }
    text += "Connected by this server:\n";
    if (tools_.pages_.empty()) text += "  (none yet; tools connect on first use)\n";
    for (const auto& [target, page] : tools_.pages_) {
      const std::string_view model = page->device().banner().property("ro.product.model");
      text += "  " + target + (model.empty() ? "" : "  model:" + std::string(model)) + '\n';
    }
    text += "Default device: " + (tools_.options_.target.empty() ? std::string("$ANDROID_SERIAL")
                                                                 : tools_.options_.target);
    return text_result(std::move(text));
  }

  Json connect() {
    device_ = args_.required_string("target");
    Page& connected = page();
    std::string text = "Connected to " + device_;
    const protocol::Banner& banner = connected.device().banner();
    for (const char* key : {"ro.product.model", "ro.product.device", "ro.product.name"}) {
      const std::string_view value = banner.property(key);
      if (!value.empty())
        text += std::string(text.ends_with(device_) ? " (" : ", ") + key + "=" + std::string(value);
    }
    if (!text.ends_with(device_)) text += ")";
    text += ". Pass device: " + in_quotes(device_) + " to the other tools to drive it.";
    return text_result(std::move(text));
  }

  Json snapshot() {
    const std::optional<std::int64_t> depth = args_.integer("max_depth", 0, 1000);
    ui::SnapshotOptions view{.interactive_only = args_.flag("interactive"),
                             .max_depth = static_cast<std::uint32_t>(depth.value_or(0)),
                             .compact = args_.flag("compact")};
    Page& current = page();
    current.snapshot();
    std::string text = fit(current, render(current, view));
    // Say why a WebView shows no page content, so the agent knows what it is not seeing.
    const WebStatus& web = current.web_status();
    if (web.webviews > web.pages && !web.problem.empty())
      text += "\n(WebView content not shown: " + web.problem + ")";
    return text_result(std::move(text));
  }

  Json webviews() {
    const std::vector<WebViewPage> pages = list_webviews(page().device());
    if (pages.empty()) {
      return text_result(
          "No debuggable WebView or browser tab: WebView content is readable only in debug builds, "
          "in apps that "
          "call WebView.setWebContentsDebuggingEnabled(true), and in Chrome.");
    }
    std::string text;
    for (const WebViewPage& p : pages) {
      text += "- " + p.type + " " + in_quotes(p.title) + " " + p.url + " (app " +
              (p.package.empty() ? "?" : p.package) + ", socket @" + p.socket +
              (p.has_screen_rect ? (p.visible ? ", visible" : ", not visible") : "") + ")\n";
    }
    text += "Visible pages appear inside snapshot under their WebView, with refs.";
    return text_result(std::move(text));
  }

  // An action on a ref or a point (tap, long_press).
  Json tap(bool long_press) {
    const std::optional<std::uint32_t> ref = args_.ref();
    const std::optional<ScreenPoint> point = args_.point();
    const char* verb = long_press ? "Long-pressed" : "Tapped";
    if (ref && point) throw Error(errc::invalid_argument, "give either ref or x and y, not both");
    Page& current = page();
    if (ref) {
      const std::string label = label_of(current, *ref);
      long_press ? current.long_press(*ref) : current.tap(*ref);
      return action_done(std::string(verb) + " ref " + std::to_string(*ref) + label + ".");
    }
    if (point) {
      long_press ? current.long_press_at(*point) : current.tap_at(*point);
      return action_done(std::string(verb) + " at (" + format_number(point->x) + ", " +
                         format_number(point->y) + ").");
    }
    throw Error(errc::invalid_argument,
                "give ref (an element's [ref=N] from the latest snapshot) or x and y");
  }

  Json type() {
    const std::optional<std::uint32_t> given = args_.ref();
    if (!given)
      throw Error(errc::invalid_argument, "argument 'ref' is required: the TextInput's [ref=N]");
    const std::uint32_t ref = *given;
    const std::string text = args_.required_string("text");
    const TypeOptions options{.clear = args_.flag("clear"), .submit = args_.flag("submit")};
    Page& current = page();
    const std::string label = label_of(current, ref);
    current.type(ref, text, options);
    return action_done("Typed " + in_quotes(text) + " into ref " + std::to_string(ref) + label +
                       (options.submit ? " and pressed Enter." : "."));
  }

  Json press() {
    const std::string key = args_.required_string("key");
    page().press(key);
    return action_done("Pressed " + key + ".");
  }

  template <typename Act>
  Json key_action(const char* key, Act act) {
    act(page());
    return action_done(std::string("Pressed ") + key + ".");
  }

  Json scroll() {
    const Direction direction = direction_of(args_.required_string("direction"));
    const std::optional<std::uint32_t> ref = args_.ref();
    Page& current = page();
    const std::string where =
        ref ? "ref " + std::to_string(*ref) + label_of(current, *ref) : "the screen";
    if (ref) {
      current.scroll(*ref, direction);
    } else {
      // The finger moves against the direction, from just off the middle to a third across.
      ScreenPoint from{0.5, 0.5, true};
      ScreenPoint to{0.5, 0.5, true};
      switch (direction) {
        case Direction::down:
          from.y = 0.6;
          to.y = 0.3;
          break;
        case Direction::up:
          from.y = 0.4;
          to.y = 0.7;
          break;
        case Direction::right:
          from.x = 0.6;
          to.x = 0.3;
          break;
        case Direction::left:
          from.x = 0.4;
          to.x = 0.7;
          break;
      }
      current.swipe(from, to);
    }
    return action_done("Scrolled " + where + " " + args_.required_string("direction") + ".");
  }

  Json swipe() {
    const bool normalized = args_.flag("normalized");
    const ScreenPoint from{args_.required_number("from_x"), args_.required_number("from_y"),
                           normalized};
    const ScreenPoint to{args_.required_number("to_x"), args_.required_number("to_y"), normalized};
    const std::chrono::milliseconds duration{args_.integer("duration_ms", 1, 60000).value_or(0)};
    page().swipe(from, to, duration);
    return action_done("Swiped from (" + format_number(from.x) + ", " + format_number(from.y) +
                       ") to (" + format_number(to.x) + ", " + format_number(to.y) + ").");
  }

  Json launch() {
    const std::string package = args_.required_string("package");
    const std::string activity = args_.string("activity").value_or("");
    page().launch(package, activity);
    return action_done("Launched " + package + (activity.empty() ? "" : "/" + activity) + ".");
  }

  Json take_screenshot() {
    ScreenshotOptions options;
    options.format =
        args_.string("format").value_or("png") == "jpeg" ? ImageFormat::jpeg : ImageFormat::png;
    if (const std::optional<std::string> format = args_.string("format");
        format && *format != "png" && *format != "jpeg") {
      throw Error(errc::invalid_argument, "format '" + *format + "': use png or jpeg");
    }
    options.jpeg_quality = static_cast<int>(args_.integer("quality", 1, 100).value_or(80));
    options.max_side = static_cast<std::uint32_t>(
        args_.integer("max_side", 16, kMaxImageSide).value_or(kMaxImageSide));
    options.max_bytes = tools_.options_.max_image_bytes;
    const EncodedImage image = adbwire::screenshot(page().device(), options);
    Json content = Json::array();
    content.push_back({{"type", "image"},
                       {"data", detail::base64_encode(image.bytes)},
                       {"mimeType", std::string(image.mime_type())}});
    content.push_back(text_block("Screenshot " + std::to_string(image.width) + "x" +
                                 std::to_string(image.height) + " " +
                                 (image.format == ImageFormat::png ? "PNG" : "JPEG") + ", " +
                                 std::to_string((image.bytes.size() + 1023) / 1024) + " KiB."));
    return result(std::move(content));
  }

  Json wait_for_text() {
    const std::string text = args_.required_string("text");
    const std::chrono::milliseconds timeout{
        args_.integer("timeout_ms", 1, kMaxWaitMs).value_or(kDefaultWaitMs)};
    const Deadline end = deadline_after(timeout);
    Page& current = page();
    for (;;) {
      cancel_.check();
      const ui::Snapshot& snapshot = current.snapshot();
      if (!snapshot.find(text).empty()) {
        return text_result("Found " + in_quotes(text) + ". The screen now:\n" +
                           fit(current, snapshot.to_text()));
      }
      if (Clock::now() + kWaitPause >= end) {
        return text_result(
            in_quotes(text) + " did not appear within " + std::to_string(timeout.count()) +
                " ms. The screen now (its refs are current):\n" + fit(current, snapshot.to_text()),
            true);
      }
      cancel_.sleep(kWaitPause);
    }
  }

  Json find() {
    struct Criterion {
      ui::FindField field;
      const char* name;
    };
    const ui::MatchMode mode = args_.flag("exact") ? ui::MatchMode::exact : ui::MatchMode::partial;
    std::vector<std::pair<ui::FindField, std::string>> criteria;
    for (const Criterion c :
         {Criterion{ui::FindField::text, "text"}, Criterion{ui::FindField::resource_id, "id"},
          Criterion{ui::FindField::content_desc, "desc"}}) {
      if (std::optional<std::string> value = args_.string(c.name))
        criteria.emplace_back(c.field, std::move(*value));
    }
    if (criteria.empty()) throw Error(errc::invalid_argument, "give text, id or desc to look for");
    Page& current = page();
    const ui::Snapshot& snapshot = current.snapshot();
    std::vector<ui::NodeIndex> matches = snapshot.find(criteria[0].first, criteria[0].second, mode);
    for (std::size_t i = 1; i < criteria.size(); ++i) {
      const std::vector<ui::NodeIndex> more =
          snapshot.find(criteria[i].first, criteria[i].second, mode);
      const std::set<ui::NodeIndex> keep(more.begin(), more.end());
      std::erase_if(matches, [&keep](ui::NodeIndex n) { return !keep.contains(n); });
    }
    if (matches.empty()) {
      return text_result("Nothing on the current screen matches (" +
                         std::to_string(snapshot.nodes().size()) +
                         " elements searched). Try a shorter text, another field, exact: false, "
                         "scroll to reveal more, or take a snapshot to read the screen.");
    }
    std::string text = std::to_string(matches.size()) +
                       (matches.size() == 1 ? " match" : " matches") +
                       " (refs are from the fresh snapshot just taken):\n";
    for (std::size_t i = 0; i < std::min(matches.size(), kMaxFindMatches); ++i) {
      text += describe(snapshot, matches[i]) + '\n';
    }
    if (matches.size() > kMaxFindMatches)
      text +=
          "… " + std::to_string(matches.size() - kMaxFindMatches) + " more; narrow the search.\n";
    return text_result(std::move(text));
  }

  Json shell() {
    const std::string command = args_.required_string("command");
    const std::chrono::milliseconds timeout{
        args_.integer("timeout_ms", 1, kMaxWaitMs).value_or(30000)};
    const ShellResult ran = page().device().shell(command, deadline_after(timeout));
    std::string text =
        "exit code: " +
        (ran.exit_code < 0 ? std::string("unknown (no shell v2)") : std::to_string(ran.exit_code)) +
        "\n";
    text += "stdout:\n" + cap(ran.out) + (ran.err.empty() ? "" : "\nstderr:\n" + cap(ran.err));
    return text_result(std::move(text));
  }

  // "- Button [ref=5] "Add" (desc) id=… centre (540, 1200)", or for an element without a
  // ref, the ref of the nearest enclosing element that has one.
  static std::string describe(const ui::Snapshot& snapshot, ui::NodeIndex index) {
    const ui::Node& node = snapshot.node(index);
    const ui::ElementInfo info = snapshot.info(index);
    std::string line = "- " + std::string(node.role);
    if (node.ref != 0) line += " [ref=" + std::to_string(node.ref) + "]";
    if (!node.text.empty()) line += " " + in_quotes(node.text);
    if (!node.content_desc.empty()) line += " (" + std::string(node.content_desc) + ")";
    if (!node.resource_id.empty()) line += " id=" + std::string(node.resource_id);
    line +=
        " centre (" + std::to_string(info.center.x) + ", " + std::to_string(info.center.y) + ")";
    if (node.ref == 0) {
      for (ui::NodeIndex up = node.parent; up != ui::kNoNode; up = snapshot.node(up).parent) {
        if (snapshot.node(up).ref == 0) continue;
        line += " inside [ref=" + std::to_string(snapshot.node(up).ref) + "]";
        break;
      }
    }
    return line;
  }

  // ' (Button "Submit")' for a ref of the latest snapshot, "" when it issued no such ref (the
  // action then fails with the library's message).
  static std::string label_of(const Page& page, std::uint32_t ref) {
    const ui::RefInfo* info = page.last_snapshot().ref(ref);
    return info == nullptr || info->label.empty() ? std::string() : " (" + info->label + ")";
  }

  static std::string render(const Page& page, const ui::SnapshotOptions& view) {
    if (!view.interactive_only && !view.compact && view.max_depth == 0)
      return page.last_snapshot().to_text();
    // Refs keep their numbers whatever is printed, so a view re-renders the same dump.
    return ui::parse_dump(page.last_dump(), view).to_text();
  }

  // The snapshot text as it goes into a reply: whole when it fits the budget; else saved to a
  // file, with the path, the counts and as much of a compact interactive view as fits.
  std::string fit(const Page& page, std::string text) {
    const std::size_t budget = tools_.options_.max_snapshot_chars;
    if (text.size() <= budget) return text;
    const std::string path = tools_.save_snapshot(text);
    std::string out = "The snapshot is " + std::to_string(text.size()) + " characters (" +
                      std::to_string(std::count(text.begin(), text.end(), '\n')) + " lines, " +
                      std::to_string(page.last_snapshot().refs().size()) + " refs), over the " +
                      std::to_string(budget) + "-character budget, so it is saved in full to " +
                      path + ". Its refs are valid. The interactive elements, compactly:\n";
    const std::string view =
        ui::parse_dump(page.last_dump(),
                       {.interactive_only = true, .max_depth = 0, .compact = true})
            .to_text();
    const std::size_t room = budget > out.size() ? budget - out.size() : 0;
    std::size_t cut = view.size() <= room ? view.size() : view.rfind('\n', room);
    if (cut == std::string::npos) cut = 0;
    out.append(view, 0, cut);
    if (cut < view.size()) {
      const auto rest =
          std::count(view.begin() + static_cast<std::ptrdiff_t>(cut), view.end(), '\n');
      out += (cut > 0 ? "\n… " : "… ") + std::to_string(rest) +
             " more lines: read the file, use find, or snapshot with max_depth.\n";
    }
    return out;
  }

  std::string cap(const std::string& output) const {
    const std::size_t budget = tools_.options_.max_snapshot_chars;
    if (output.size() <= budget) return output;
    return output.substr(0, budget) + "\n… " + std::to_string(output.size() - budget) +
           " more bytes cut; narrow the command (grep, head) to see them";
  }

  // An action's reply: its summary and, with --auto-snapshot, the screen after it settled.
  Json action_done(std::string summary) {
    if (!tools_.options_.auto_snapshot) return text_result(std::move(summary));
    cancel_.sleep(tools_.options_.settle);
    Page& current = page();
    std::error_code error;
    current.snapshot(kDefaultDeadline, error);
    Json content = Json::array({text_block(std::move(summary))});
    content.push_back(text_block(
        error ? "The action was sent, but the snapshot after it failed: " + current.last_error() +
                    ". Take a snapshot before the next action on a ref."
              : "The screen after it (refs are current):\n" +
                    fit(current, current.last_snapshot().to_text())));
    return result(std::move(content));
  }

  DeviceTools& tools_;
  Args args_;
  const CancelToken& cancel_;
  std::string device_;
};

DeviceTools::DeviceTools(DeviceToolsOptions options)
    : options_(std::move(options)), definitions_(tool_definitions(options_.allow_shell)) {}

DeviceTools::~DeviceTools() = default;

Json DeviceTools::list() const { return definitions_; }

Json DeviceTools::call(const std::string& name, const Json& arguments, const CancelToken& cancel) {
  const auto definition = std::find_if(definitions_.begin(), definitions_.end(),
                                       [&name](const Json& tool) { return tool["name"] == name; });
  if (definition == definitions_.end()) {
    throw RpcError(kInvalidParams,
                   name == "shell"
                       ? "the shell tool is off: start the server with --allow-shell to offer it"
                       : "unknown tool '" + name + "'; tools/list names the tools");
  }
  std::string device;
  try {
    Call call(*this, *definition, arguments, cancel);
    try {
      return call.run(name);
    } catch (const Error&) {
      device = call.device();
      throw;
    }
  } catch (const Error& e) {
    if (e.code() == errc::device_offline || e.code() == errc::closed) forget(device);
    return text_result(advice(e, device.empty() ? options_.target : device), true);
  } catch (const std::system_error& e) {
    return text_result(detail_of(e), true);
  }
}

Page& DeviceTools::page(const std::string& device) {
  const std::string& target = device.empty() ? options_.target : device;
  if (const auto it = pages_.find(target); it != pages_.end()) return *it->second;
  if (target.empty() && std::getenv("ANDROID_SERIAL") == nullptr) {
    throw Error(errc::invalid_argument,
                "no device given: pass `device` (the devices tool lists them), or start the server "
                "with a default one, e.g. `adbwire mcp tcp:HOST:PORT`");
  }
  const std::string name = target.empty() ? std::string("$ANDROID_SERIAL") : target;
  std::unique_ptr<Page> page;
  try {
    page = std::make_unique<Page>(Page::connect(target, options_.page, options_.connect));
  } catch (const Error& e) {
    throw Error(e.code(), "cannot connect to " + name + ": " + detail_of(e));
  }
  if (options_.log) options_.log("connected to " + name);
  return *pages_.emplace(target, std::move(page)).first->second;
}

void DeviceTools::forget(const std::string& device) {
  const std::string& target = device.empty() ? options_.target : device;
  if (pages_.erase(target) > 0 && options_.log) options_.log("lost the connection to " + target);
}

std::string DeviceTools::save_snapshot(std::string_view text) {
  // A snapshot shows the screen (messages, account names): it goes into a folder only this user
  // can read, under a name no other user can take first (base/private_files.hpp).
  detail::Failure failure;
  if (options_.snapshot_dir.empty()) {
    const fs::path runtime = detail::private_runtime_folder(failure);
    if (!failure) {
      own_snapshot_dir_ = true;
      options_.snapshot_dir = runtime / ("mcp-" + std::to_string(::getpid()));
    }
  }
  const fs::path path =
      options_.snapshot_dir / ("snapshot-" + std::to_string(++saved_snapshots_) + ".yml");
  if (!failure) {
    const detail::FolderFd folder = detail::open_private_folder(
        options_.snapshot_dir,
        own_snapshot_dir_ ? detail::FolderTrust::own : detail::FolderTrust::chosen, failure);
    if (folder) detail::write_private_file(folder.get(), path.filename().string(), text, failure);
  }
  if (failure) {
    throw Error(failure.code,
                "the snapshot is too large for a reply and cannot be saved: " + failure.detail +
                    "; pass --snapshot-dir to a folder of yours, or use "
                    "interactive, compact or max_depth");
  }
  return path.string();
}

}  // namespace adbwire::mcp
