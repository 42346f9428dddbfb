// adbwire.Page: the agent API (snapshot → act by ref → snapshot) over one connection, and the
// small types its calls return.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "agent/input_commands.hpp"
#include "binding.hpp"
#include "interrupt.hpp"

namespace adbwire::python {
namespace {

using std::chrono::milliseconds;

// Runs f(page) with the GIL released and the Page's mutex held (adbwire::Page is for one
// caller at a time). The mutex is taken only after the GIL is released, and released before
// the GIL is taken back, so no thread ever waits for one while holding the other.
// Interruptible by Ctrl-C (interrupt.hpp).
template <typename F>
auto on_page(PageBox& box, F&& f) {
  return interruptible([&] {
    std::lock_guard<std::mutex> lock(box.mutex);
    return f(box.page);
  });
}

// As on_page, for a call the agent verb `verb` with `arguments` stands for: with Page.observe on,
// the observation cache records it as it records that verb (observed_call).
template <typename F>
auto on_page_as(PageBox& box, std::string_view verb, const verbs::Json& arguments, F&& f) {
  using Result = decltype(f(box.page));
  return interruptible([&]() -> Result {
    std::lock_guard<std::mutex> lock(box.mutex);
    if (!box.observe) return f(box.page);
    if constexpr (std::is_void_v<Result>) {
      observed_call(box, verb, arguments, [&](Page& page) { f(page); });
    } else {
      std::optional<Result> result;
      observed_call(box, verb, arguments, [&](Page& page) { result.emplace(f(page)); });
      return std::move(*result);
    }
  });
}

constexpr Names<Direction> kDirections[] = {{"up", Direction::up},
                                            {"down", Direction::down},
                                            {"left", Direction::left},
                                            {"right", Direction::right}};
constexpr Names<SettingsNamespace> kNamespaces[] = {{"system", SettingsNamespace::system},
                                                    {"secure", SettingsNamespace::secure},
                                                    {"global", SettingsNamespace::global}};
constexpr Names<Orientation> kOrientations[] = {
    {"portrait", Orientation::portrait},
    {"landscape", Orientation::landscape},
    {"reverse_portrait", Orientation::reverse_portrait},
    {"reverse_landscape", Orientation::reverse_landscape}};

py::object datetime_from(std::chrono::system_clock::time_point at) {
  const double seconds = std::chrono::duration<double>(at.time_since_epoch()).count();
  const py::module_ datetime = py::module_::import("datetime");
  return datetime.attr("datetime")
      .attr("fromtimestamp")(seconds, datetime.attr("timezone").attr("utc"));
}

void bind_page_results(py::module_& module) {
  py::class_<ForegroundActivity>(module, "ForegroundActivity",
                                 "The resumed activity: package and activity names.")
      .def_property_readonly(
          "package", [](const ForegroundActivity& f) { return text(f.package); },
          "\"com.android.settings\"")
      .def_property_readonly(
          "activity", [](const ForegroundActivity& f) { return text(f.activity); }, "\".Settings\"")
      .def("__repr__", [](const ForegroundActivity& f) {
        return py::str("ForegroundActivity(package={!r}, activity={!r})")
            .format(text(f.package), text(f.activity));
      });

  py::class_<Capabilities>(module, "Capabilities",
                           "What a device supports, from one probe (Page.capabilities()).")
      .def_property_readonly(
          "names",
          [](const Capabilities& c) {
            std::vector<std::string> names;
            for (std::string_view name : c.names()) names.emplace_back(name);
            return names;
          },
          "The supported capabilities: snapshot, input, unicode_text, clipboard, "
          "drag_and_drop, screenshot, install, settings, notifications, dismiss_keyguard.")
      .def(
          "has",
          [](const Capabilities& c, const std::string& name) {
            for (std::string_view supported : c.names()) {
              if (supported == name) return true;
            }
            return false;
          },
          py::arg("name"), "True when the capability of that name is supported.")
      .def_readonly("sdk", &Capabilities::sdk, "ro.build.version.sdk (0 when unreadable).")
      .def_property_readonly(
          "screen_size",
          [](const Capabilities& c) { return std::make_pair(c.screen_size.x, c.screen_size.y); },
          "(width, height) in physical pixels, natural orientation (wm size).")
      .def_property_readonly(
          "input_method", [](const Capabilities& c) { return text(c.input_method); },
          "The default input method (settings secure default_input_method).");

  py::class_<HelperStatus>(module, "HelperStatus", "Whether snapshots use the on-device dumper.")
      .def_readonly("in_use", &HelperStatus::in_use, "The last snapshot came from the helper.")
      .def_readonly("fell_back", &HelperStatus::fell_back,
                    "Automatic mode gave up on it for this Page.")
      .def_property_readonly(
          "last_error", [](const HelperStatus& h) { return text(h.last_error); },
          "Why it last failed, \"\" if never.");

  py::class_<WebStatus>(module, "WebStatus", "What the last snapshot's WebView bridge did.")
      .def_readonly("webviews", &WebStatus::webviews, "WebView nodes on the screen.")
      .def_readonly("pages", &WebStatus::pages, "Of them, shown from a debuggable page.")
      .def_readonly("web_nodes", &WebStatus::web_nodes, "Elements added from those pages.")
      .def_property_readonly(
          "problem", [](const WebStatus& w) { return text(w.problem); },
          "Why a WebView kept its native content only (\"\" when none did).");
  py::class_<OcrStatus>(module, "OcrStatus",
                        "What the last snapshot's text recognition (PageOptions.ocr) did.")
      .def_readonly("ran", &OcrStatus::ran, "The screen's pixels were read.")
      .def_readonly("texts", &OcrStatus::texts, "Word groups added, each with a ref.")
      .def_property_readonly(
          "took", [](const OcrStatus& o) { return seconds_from(o.took); },
          "Seconds the screenshot and the reading took.")
      .def_property_readonly(
          "problem", [](const OcrStatus& o) { return text(o.problem); },
          "Why the reading could not run (\"\" when it ran or was not needed).");
}

// Snapshot, last_snapshot, waits: the text refs refer to.
void bind_reading(py::class_<PageBox, std::shared_ptr<PageBox>>& cls) {
  cls.def(
      "snapshot",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return text(on_page_as(box, "snapshot", verbs::Json::object(),
                               [&](Page& page) { return page.snapshot(deadline).to_text(); }));
      },
      py::arg("timeout") = py::none(),
      "Dumps the screen and returns the pruned [ref=N] text; its refs are the ones later "
      "actions take. Errors: TimeoutError (the screen never settled), BusyError (another "
      "UiAutomation client such as uiautomator2 or Appium holds the screen), "
      "CommandFailedError, ParseError.");
  cls.def(
      "snapshot_json",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return text(on_page_as(box, "snapshot", verbs::Json::object(),
                               [&](Page& page) { return page.snapshot(deadline).to_json(); }));
      },
      py::arg("timeout") = py::none(),
      "As snapshot(), returned as JSON text: {\"rotation\": R, \"nodes\": [{\"role\", \"ref\", "
      "\"text\", \"desc\", \"hint\", \"states\", \"class\", \"resource_id\", \"bounds\": [l, t, r, "
      "b], \"children\"}]} (empty fields left out).");
  cls.def(
      "last_snapshot",
      [](PageBox& box) {
        return text(on_page(box, [](Page& page) { return page.last_snapshot().to_text(); }));
      },
      "The text of the snapshot the refs refer to (\"\" before the first); no device call.");
  cls.def_property_readonly(
      "last_dump",
      [](PageBox& box) { return text(on_page(box, [](Page& page) { return page.last_dump(); })); },
      "The XML of the last dump, as the device sent it (plus web elements under WebViews).");
  cls.def(
      "wait_for_text",
      [](PageBox& box, const std::string& needle, double timeout) {
        const milliseconds wait = milliseconds_from(timeout, "timeout");
        return text(
            on_page(box, [&](Page& page) { return page.wait_for_text(needle, wait).to_text(); }));
      },
      py::arg("text"), py::arg("timeout") = 10.0,
      "Snapshots until one has an element matching text (resource-id, text or description), "
      "and returns it (its refs become current). TimeoutError naming the text otherwise.");
  cls.def(
      "wait_for_idle",
      [](PageBox& box, double timeout) {
        const milliseconds wait = milliseconds_from(timeout, "timeout");
        return text(on_page(box, [&](Page& page) { return page.wait_for_idle(wait).to_text(); }));
      },
      py::arg("timeout") = 10.0,
      "Snapshots until two in a row are identical (the screen settled) and returns it. "
      "TimeoutError when the screen kept changing.");
}

// Actions on refs and coordinates, and keys.
void bind_acting(py::class_<PageBox, std::shared_ptr<PageBox>>& cls) {
  constexpr const char* kRefErrors =
      " Errors also: NotFoundError (no such ref, or no snapshot yet), StaleRefError (the "
      "element is no longer on the screen: take a new snapshot; nothing was sent).";
  const auto ref_action = [&cls, kRefErrors](const char* name, auto method, const char* doc) {
    cls.def(
        name,
        [name, method](PageBox& box, std::uint32_t ref, const std::optional<double>& timeout) {
          const Deadline deadline = deadline_from(timeout);
          on_page_as(box, name, {{"ref", ref}}, [&](Page& page) { (page.*method)(ref, deadline); });
        },
        py::arg("ref"), py::arg("timeout") = py::none(), (std::string(doc) + kRefErrors).c_str());
  };
  using RefMethod = void (Page::*)(std::uint32_t, Deadline);
  ref_action("tap", static_cast<RefMethod>(&Page::tap),
             "Taps the element of the last snapshot numbered ref (input tap at a point of it "
             "no other element covers).");
  ref_action("long_press", static_cast<RefMethod>(&Page::long_press),
             "Presses the element for PageOptions.long_press (1 s).");

  cls.def(
      "type",
      [](PageBox& box, std::uint32_t ref, const std::string& text, bool clear, bool submit,
         const std::optional<double>& settle,
         const std::optional<double>& timeout) -> std::optional<std::string> {
        const Deadline deadline = deadline_from(timeout);
        TypeOptions options{.clear = clear, .submit = submit};
        if (settle) options.settle = milliseconds_from(*settle, "settle");
        TypeResult result;
        on_page_as(box, "type",
                   {{"ref", ref}, {"text", text}, {"clear", clear}, {"submit", submit}},
                   [&](Page& page) { result = page.type(ref, text, options, deadline); });
        if (result.check == TypeResult::Check::not_checked) return std::nullopt;
        return result.reads;
      },
      py::arg("ref"), py::arg("text"), py::arg("clear") = false, py::arg("submit") = false,
      py::arg("settle") = py::none(), py::arg("timeout") = py::none(),
      (std::string("Taps the field, then types text (spaces, \\n as Enter and \\t as Tab kept; "
                   "clear deletes the current text first, submit presses Enter after), and reads "
                   "the field back until it shows the text or settle seconds passed (default 1). "
                   "Returns what the field then reads "
                   "(the app may have formatted or corrected it: compare), or None when it was "
                   "not read back (a password field, submit, a line break). An element that is "
                   "no text field is InvalidArgumentError, nothing sent; nothing arriving is "
                   "CommandFailedError. Non-ASCII text needs ADBKeyBoard or the on-device "
                   "dumper: NotSupportedError names the options; other control characters are "
                   "InvalidArgumentError.") +
       kRefErrors)
          .c_str());
  cls.def(
      "scroll",
      [](PageBox& box, std::uint32_t ref, const std::string& direction,
         const std::optional<double>& timeout) {
        const Direction where = parse_name(direction, kDirections, "direction");
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "scroll", {{"ref", ref}, {"direction", direction}},
                   [&](Page& page) { page.scroll(ref, where, deadline); });
      },
      py::arg("ref"), py::arg("direction"), py::arg("timeout") = py::none(),
      (std::string("Swipes inside the element so that what lies in direction (\"up\", \"down\", "
                   "\"left\", \"right\") comes into view.") +
       kRefErrors)
          .c_str());
  cls.def(
      "drag",
      [](PageBox& box, std::uint32_t from, std::uint32_t to, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "drag", {{"from_ref", from}, {"to_ref", to}},
                   [&](Page& page) { page.drag(from, to, deadline); });
      },
      py::arg("from_ref"), py::arg("to_ref"), py::arg("timeout") = py::none(),
      (std::string("Long-presses from_ref, moves to to_ref and releases (input draganddrop, "
                   "or a slow swipe before Android 12).") +
       kRefErrors)
          .c_str());

  cls.def(
      "tap_at",
      [](PageBox& box, double x, double y, bool normalized, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "tap", {{"x", x}, {"y", y}, {"normalized", normalized}}, [&](Page& page) {
          page.tap_at({x, y, normalized}, deadline);
        });
      },
      py::arg("x"), py::arg("y"), py::arg("normalized") = false, py::arg("timeout") = py::none(),
      "Taps a point: pixels, or with normalized=True fractions 0..1 of the screen. "
      "InvalidArgumentError for a point off the screen.");
  cls.def(
      "long_press_at",
      [](PageBox& box, double x, double y, bool normalized, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "long_press", {{"x", x}, {"y", y}, {"normalized", normalized}},
                   [&](Page& page) {
                     page.long_press_at({x, y, normalized}, deadline);
                   });
      },
      py::arg("x"), py::arg("y"), py::arg("normalized") = false, py::arg("timeout") = py::none(),
      "Long-presses a point (as tap_at).");
  cls.def(
      "swipe",
      [](PageBox& box, double x1, double y1, double x2, double y2,
         const std::optional<double>& duration, bool normalized,
         const std::optional<double>& timeout) {
        const milliseconds length =
            duration ? milliseconds_from(*duration, "duration") : milliseconds{0};
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "swipe",
                   {{"from_x", x1},
                    {"from_y", y1},
                    {"to_x", x2},
                    {"to_y", y2},
                    {"normalized", normalized}},
                   [&](Page& page) {
                     page.swipe({x1, y1, normalized}, {x2, y2, normalized}, length, deadline);
                   });
      },
      py::arg("x1"), py::arg("y1"), py::arg("x2"), py::arg("y2"), py::arg("duration") = py::none(),
      py::arg("normalized") = false, py::arg("timeout") = py::none(),
      "Swipes from (x1, y1) to (x2, y2) over duration seconds (None: PageOptions.swipe). "
      "Points as tap_at.");

  cls.def(
      "press",
      [](PageBox& box, const std::string& key, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "press", {{"key", key}}, [&](Page& page) { page.press(key, deadline); });
      },
      py::arg("key"), py::arg("timeout") = py::none(),
      "Presses a key: back, home, enter, delete, tab, escape, up, down, left, right, space, "
      "power, volup, voldown, recent, menu, paste, a KEYCODE_* name or a number. "
      "InvalidArgumentError for an unknown name.");
  cls.def(
      "press",
      [](PageBox& box, int keycode, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page_as(box, "press", {{"key", std::to_string(keycode)}},
                   [&](Page& page) { page.press(std::to_string(keycode), deadline); });
      },
      py::arg("keycode"), py::arg("timeout") = py::none(),
      "Presses an Android keycode (4 = back).");
  using KeyMethod = void (Page::*)(Deadline);
  for (const auto& [name, method, doc] :
       {std::tuple{"back", static_cast<KeyMethod>(&Page::back), "Presses back."},
        std::tuple{"home", static_cast<KeyMethod>(&Page::home), "Presses home."},
        std::tuple{"recent", static_cast<KeyMethod>(&Page::recent), "Opens the recent apps."},
        std::tuple{"wake", static_cast<KeyMethod>(&Page::wake),
                   "Wakes the screen and dismisses a keyguard without PIN or pattern."},
        std::tuple{"open_notifications", static_cast<KeyMethod>(&Page::open_notifications),
                   "Expands the notification shade."}}) {
    const KeyMethod call = method;
    const std::string_view verb = name;
    cls.def(
        name,
        [verb, call](PageBox& box, const std::optional<double>& timeout) {
          const Deadline deadline = deadline_from(timeout);
          const auto act = [&](Page& page) { (page.*call)(deadline); };
          // back, home and recent are verbs of the table, seen by the observation cache.
          if (verb == "back" || verb == "home" || verb == "recent") {
            on_page_as(box, verb, verbs::Json::object(), act);
          } else {
            on_page(box, act);
          }
        },
        py::arg("timeout") = py::none(), doc);
  }
}

// Apps, device state and settings.
void bind_device_calls(py::class_<PageBox, std::shared_ptr<PageBox>>& cls) {
  cls.def(
      "launch",
      [](PageBox& box, const std::string& package, const std::string& activity,
         const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        verbs::Json arguments = {{"package", package}};
        if (!activity.empty()) arguments["activity"] = activity;
        on_page_as(box, "launch", arguments,
                   [&](Page& page) { page.launch(package, activity, deadline); });
      },
      py::arg("package"), py::arg("activity") = "", py::arg("timeout") = py::none(),
      "Starts an app: its launcher activity (monkey), or am start -n PACKAGE/ACTIVITY. "
      "NotFoundError for no such package or activity, InvalidArgumentError for a name no "
      "package can have.");
  cls.def(
      "stop",
      [](PageBox& box, const std::string& package, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.stop(package, deadline); });
      },
      py::arg("package"), py::arg("timeout") = py::none(), "Force-stops an app.");
  cls.def(
      "foreground",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return on_page(box, [&](Page& page) { return page.foreground(deadline); });
      },
      py::arg("timeout") = py::none(),
      "The resumed activity (dumpsys activity). NotFoundError when none is reported.");
  cls.def(
      "packages",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return texts(on_page(box, [&](Page& page) { return page.packages(deadline); }));
      },
      py::arg("timeout") = py::none(), "The installed packages (pm list packages).");
  cls.def(
      "app_labels",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        const std::map<std::string, std::string> labels =
            on_page(box, [&](Page& page) { return page.app_labels(deadline); });
        py::dict out;
        for (const auto& [package, label] : labels) out[text(package)] = text(label);
        return out;
      },
      py::arg("timeout") = py::none(),
      "{package: label} from PackageManager, through the on-device dumper (helper='auto' or "
      "'on'). NotSupportedError without it. Labels are the apps' own text: escape them before "
      "printing to a terminal.");
  cls.def(
      "install",
      [](PageBox& box, const std::filesystem::path& apk, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.install(apk, deadline); });
      },
      py::arg("apk"), py::arg("timeout") = py::none(),
      "Streams an APK file to the package manager. NotFoundError (no such file), "
      "CommandFailedError (Failure [INSTALL_...] quoted). Device.install() takes options.");
  cls.def(
      "uninstall",
      [](PageBox& box, const std::string& package, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.uninstall(package, deadline); });
      },
      py::arg("package"), py::arg("timeout") = py::none(), "Uninstalls an app.");
  cls.def(
      "screenshot",
      [](PageBox& box, bool marks, std::uint32_t max_side, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        ScreenshotOptions options;
        options.max_side = max_side;
        const std::vector<std::uint8_t> png = on_page(box, [&](Page& page) {
          return marks || max_side != 0 ? page.screenshot(options, marks, deadline).image.bytes
                                        : page.screenshot(deadline);
        });
        return py::bytes(reinterpret_cast<const char*>(png.data()), png.size());
      },
      py::arg("marks") = false, py::arg("max_side") = 0, py::arg("timeout") = py::none(),
      "PNG bytes of the screen (raw screencap encoded on the host). marks=True draws each ref "
      "of the last snapshot (taken first when there is none) as a box with its number; "
      "max_side scales the image down so its longer side is at most that many pixels (then "
      "call('tap', x=..., y=..., space='screenshot') takes its pixels). ParseError when the "
      "device prints no image.");
  cls.def(
      "clipboard_set",
      [](PageBox& box, const std::string& text, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.clipboard_set(text, deadline); });
      },
      py::arg("text"), py::arg("timeout") = py::none(),
      "Sets the clipboard through the on-device dumper (experimental). NotSupportedError "
      "unless PageOptions.helper is on (the message says how).");
  cls.def(
      "clipboard_get",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return text(on_page(box, [&](Page& page) { return page.clipboard_get(deadline); }));
      },
      py::arg("timeout") = py::none(), "The clipboard's text (as clipboard_set).");
  cls.def(
      "rotate",
      [](PageBox& box, const std::string& orientation, const std::optional<double>& timeout) {
        const Orientation value = parse_name(orientation, kOrientations, "orientation");
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.rotate(value, deadline); });
      },
      py::arg("orientation"), py::arg("timeout") = py::none(),
      "Locks the rotation at \"portrait\", \"landscape\", \"reverse_portrait\" or "
      "\"reverse_landscape\".");
  cls.def(
      "device_time",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return datetime_from(on_page(box, [&](Page& page) { return page.device_time(deadline); }));
      },
      py::arg("timeout") = py::none(), "The device clock, as an aware datetime in UTC.");
  cls.def(
      "setting",
      [](PageBox& box, const std::string& ns, const std::string& key,
         const std::optional<double>& timeout) {
        const SettingsNamespace where = parse_name(ns, kNamespaces, "namespace");
        const Deadline deadline = deadline_from(timeout);
        return text(on_page(box, [&](Page& page) { return page.setting(where, key, deadline); }));
      },
      py::arg("namespace"), py::arg("key"), py::arg("timeout") = py::none(),
      "A value of Android's settings (namespace \"system\", \"secure\" or \"global\"); \"\" "
      "for an unset key.");
  cls.def(
      "put_setting",
      [](PageBox& box, const std::string& ns, const std::string& key, const std::string& value,
         const std::optional<double>& timeout) {
        const SettingsNamespace where = parse_name(ns, kNamespaces, "namespace");
        const Deadline deadline = deadline_from(timeout);
        on_page(box, [&](Page& page) { page.put_setting(where, key, value, deadline); });
      },
      py::arg("namespace"), py::arg("key"), py::arg("value"), py::arg("timeout") = py::none(),
      "Sets a value of Android's settings.");
  cls.def(
      "capabilities",
      [](PageBox& box, const std::optional<double>& timeout) {
        const Deadline deadline = deadline_from(timeout);
        return on_page(box, [&](Page& page) { return page.capabilities(deadline); });
      },
      py::arg("timeout") = py::none(),
      "What this device supports, probed once with one shell command, then cached.");
}

}  // namespace

void bind_page(py::module_& module) {
  bind_page_results(module);
  module.def(
      "input_text_command",
      [](const std::string& typed) {
        if (agent::needs_unicode_path(typed)) {
          throw Error(errc::not_supported,
                      "`input text` cannot type non-ASCII characters (it would drop or garble "
                      "them): Page.type() types them through ADBKeyBoard or the on-device dumper");
        }
        std::size_t bad_at = 0;
        std::optional<std::string> command = agent::ascii_type_command(typed, bad_at);
        if (!command) {
          throw Error(errc::invalid_argument,
                      "the text has control character " +
                          std::to_string(static_cast<unsigned char>(typed[bad_at])) + " at byte " +
                          std::to_string(bad_at) + "; only newline and tab can be typed");
        }
        return *command;
      },
      py::arg("text"),
      "The shell command that types ASCII text wherever the focus is, as Page.type() sends it "
      "(`input text` per word, shell-quoted; KEYCODE_SPACE, ENTER for \\n, TAB for \\t); \"\" "
      "for \"\". For a field the caller has focused already: Device.shell() runs it. "
      "NotSupportedError for non-ASCII text, InvalidArgumentError for other control "
      "characters.");
  using Box = std::shared_ptr<PageBox>;
  py::class_<PageBox, Box> cls(
      module, "Page",
      "The agent API: snapshot() gives the screen as [ref=N] text, then tap(ref), "
      "type(ref, text), press(\"back\"), ... act on it, all over one open connection. Before "
      "acting on a ref after the screen may have changed, the Page re-reads the screen and acts "
      "only on the same element (else StaleRefError, nothing sent). Calls release the GIL and "
      "are serialized: a Page may be shared by threads, one call runs at a time. Timeouts in "
      "seconds; None = PageOptions.timeout.");
  cls.def(py::init([](const std::shared_ptr<DeviceBox>& device,
                      const std::optional<PageOptions>& options) {
            if (device->owned_by_page) {
              throw Error(errc::invalid_argument,
                          "this Device already belongs to a Page (made by Page(device) or "
                          "taken from Page.device): use that Page, or connect again");
            }
            if (device->in_flight.load() != 0) {
              throw Error(errc::busy,
                          "this Device has calls running on other threads (or an open "
                          "Forwarder): make the Page "
                          "before sharing the Device, or use Page.connect");
            }
            auto page =
                std::make_shared<PageBox>(std::move(*device->device),
                                          options.value_or(PageOptions{}), device->command_timeout);
            device->device = std::shared_ptr<Device>(page, &page->page.device());
            device->owned_by_page = true;
            return page;
          }),
          py::arg("device"), py::arg("options") = py::none(),
          "A Page over an open Device; issues no command. The Page takes the connection over: "
          "device keeps working and refers to the same connection (Page.device).");
  cls.def_static(
      "connect",
      [](const std::string& target, const std::optional<PageOptions>& options,
         const std::optional<ConnectOptions>& connect_options) {
        PageOptions page_options = options.value_or(PageOptions{});
        const ConnectOptions chosen = connect_options.value_or(ConnectOptions{});
        Device device = cancellable(
            interruptible_or_left([target, chosen] { return Device::connect(target, chosen); }));
        return std::make_shared<PageBox>(std::move(device), std::move(page_options),
                                         chosen.command_timeout);
      },
      py::arg("target") = "", py::arg("options") = py::none(),
      py::arg("connect_options") = py::none(),
      "Connects to target (the forms and errors of Device.connect) and returns a Page on it.");
  cls.def_property_readonly(
      "device", [](const Box& box) { return device_of(box); },
      "The Device this Page acts through (the same connection); shell, push, pull on it may "
      "run while the Page works.");
  cls.def_property_readonly(
      "options",
      [](PageBox& box) { return on_page(box, [](Page& page) { return page.options(); }); },
      "A copy of the PageOptions this Page uses.");
  cls.def_property_readonly(
      "last_error",
      [](PageBox& box) { return text(on_page(box, [](Page& page) { return page.last_error(); })); },
      "The message of the last failed call, \"\" when none failed yet.");
  cls.def_property_readonly(
      "helper_status",
      [](PageBox& box) { return on_page(box, [](Page& page) { return page.helper_status(); }); },
      "The on-device dumper's state for this Page.");
  cls.def_property_readonly(
      "web_status",
      [](PageBox& box) { return on_page(box, [](Page& page) { return page.web_status(); }); },
      "The WebView bridge's report on the last snapshot.");
  cls.def_property_readonly(
      "ocr_status",
      [](PageBox& box) { return on_page(box, [](Page& page) { return page.ocr_status(); }); },
      "What the last snapshot's text recognition did.");
  cls.def(
      "set_ocr",
      [](PageBox& box, const std::string& mode) {
        const PageOptions::Ocr parsed = parse_ocr_mode(mode);
        on_page(box, [&](Page& page) { page.set_ocr(parsed); });
      },
      py::arg("mode"),
      "Changes PageOptions.ocr (\"auto\", \"on\" or \"off\") for the snapshots to come.");
  bind_reading(cls);
  bind_acting(cls);
  bind_device_calls(cls);
  const auto close = [](PageBox& box) {
    py::gil_scoped_release release;
    box.page.device().close();  // thread safe, and wakes a call blocked on the Page
  };
  cls.def("close", close,
          "Closes the connection (a call blocked on this Page wakes with ClosedError). "
          "Idempotent.");
  cls.def("__enter__", [](const Box& box) { return box; });
  cls.def("__exit__", [close](PageBox& box, const py::args&) { close(box); });
  bind_verbs(module, cls);
}

}  // namespace adbwire::python
