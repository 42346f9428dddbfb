// The verb table: every agent verb once, its names, descriptions, parameters and their
// constraints (verbs/verb.hpp). Data only: the lean CLI front links it (adbwire_verb_table) to
// parse verb command lines without the handlers (handlers.cpp) and the library behind them.
#include "verbs/verb.hpp"

namespace adbwire::verbs {
namespace {

constexpr Hints kReadOnly{.read_only = true, .destructive = false, .idempotent = true};
constexpr Hints kAction{.read_only = false, .destructive = true, .idempotent = false};
constexpr Hints kNavigation{.read_only = false, .destructive = false, .idempotent = false};
constexpr Hints kWorld{
    .read_only = true, .destructive = false, .idempotent = true, .open_world = true};

Param text_param(std::string_view name, std::string_view description, bool required = false) {
  return {name, ParamType::string, description, required};
}
Param integer_param(std::string_view name, std::string_view description, std::int64_t minimum,
                    std::int64_t maximum, bool required = false) {
  return {name, ParamType::integer, description, required, minimum, maximum};
}
Param number_param(std::string_view name, std::string_view description, bool required = false) {
  return {name, ParamType::number, description, required};
}
Param flag_param(std::string_view name, std::string_view description) {
  return {name, ParamType::boolean, description};
}
Param choice_param(std::string_view name, std::string_view description,
                   std::vector<std::string_view> choices, bool required = false) {
  Param p{name, ParamType::string, description, required};
  p.choices = std::move(choices);
  return p;
}

const Param kRef =
    integer_param("ref", "The element's [ref=N] from the latest snapshot.", 1, 0xFFFFFFFF);
const Param kSelector = text_param(
    "selector",
    "Instead of a ref: the element whose resource-id, text or description matches (tried in "
    "that order, exact before substring), with a ref or not; the action goes to its own "
    "bounds. Several equally good matches are an error listing them.");
const Param kId = text_param("id", "Instead of a ref: the element with this resource-id.");
const Param kText = text_param("text", "Instead of a ref: the element showing this text.");
const Param kDesc =
    text_param("desc", "Instead of a ref: the element with this content description.");
const Param kX = number_param("x", "Horizontal position in pixels (or 0..1 with normalized).");
const Param kY = number_param("y", "Vertical position in pixels (or 0..1 with normalized).");
const Param kNormalized =
    flag_param("normalized", "true: coordinates are fractions 0..1 of the screen.");
const Param kSpace = choice_param(
    "space",
    "What the coordinates measure: screen pixels (default), normalized fractions 0..1, or "
    "screenshot: pixels of the last screenshot, mapped back to the screen by its scale.",
    {"screen", "normalized", "screenshot"});
// tap and long_press: an element (ref or selector) or a point.
const std::vector<Param> kElementOrPoint = {kRef, kSelector, kId,         kText, kDesc,
                                            kX,   kY,        kNormalized, kSpace};
const Param kDirection = choice_param("direction", "Where the content you want to see lies.",
                                      {"up", "down", "left", "right"}, true);
const Param kPackage =
    text_param("package", "The app's package name, e.g. com.android.settings.", true);
const Param kNamespace = choice_param("namespace", "The settings namespace (default system).",
                                      {"system", "secure", "global"});

std::vector<Verb> make_table() {
  std::vector<Verb> v;
  v.push_back(
      {"snapshot",
       "Read the screen",
       "Read the current screen as an accessibility tree, one element per line: "
       "`- Role [ref=N] \"text\" (description) [states]`, indented by depth, the app "
       "named first. Elements you can tap, type into, long-press, check or scroll carry "
       "[ref=N]; pass N to the other verbs. Refs belong to the latest snapshot; every "
       "action re-checks its ref against the screen and refuses (stale ref) rather than "
       "guess. A screen too large for the reply is saved to a file and summarized.",
       {flag_param("interactive", "Hide text that is not part of an element with a ref."),
        flag_param("compact", "Skip unlabeled groups and cut long text (huge screens)."),
        integer_param("max_depth",
                      "Print at most this many levels (0: all); refs keep their numbers.", 0, 1000),
        flag_param("ids", "Show resource ids (#id) for scripts and tests."),
        flag_param("activity", "Name the foreground activity too (one more query)."),
        flag_param("json", "The pruned tree as JSON instead of text."),
        flag_param("ocr",
                   "true: also read the screen's text from its pixels ([ocr] refs) on any "
                   "screen; false: never. Default: only when nothing on it is accessible.")},
       kReadOnly,
       {},
       true,
       false,
       "yml"});
  v.push_back({"tap",
               "Tap",
               "Tap an element by ref, by selector (one call instead of find then tap), or a "
               "point (x, y). The element is first found on the current screen: if it moved, the "
               "tap goes where it is now and the reply says so; if it is gone or ambiguous, "
               "nothing is tapped and the error says to take a new snapshot.",
               kElementOrPoint,
               kAction,
               {"ref"},
               true,
               false,
               ""});
  v.push_back({"click_area",
               "Tap an area",
               "Tap the centre of a rectangle given by its top-left (x1, y1) and bottom-right "
               "(x2, y2) corners: for a region read off a screenshot rather than an element.",
               {number_param("x1", "Left edge.", true), number_param("y1", "Top edge.", true),
                number_param("x2", "Right edge.", true), number_param("y2", "Bottom edge.", true),
                kNormalized, kSpace},
               kAction,
               {"x1", "y1", "x2", "y2"},
               true,
               false,
               ""});
  v.push_back({"long_press",
               "Long-press",
               "Press and hold (1 s) an element by ref or selector, or a point: opens context "
               "menus, starts selection or drag modes.",
               kElementOrPoint,
               kAction,
               {"ref"},
               true,
               false,
               ""});
  v.push_back(
      {"type",
       "Type text",
       "Type text into a text field (TextInput) named by ref or selector: taps it, waits "
       "until it has focus, types, and reads it back until it shows the text (settle_ms). "
       "Anything else is refused with nothing sent. Nothing arriving is an error; a field "
       "that reads otherwise (formatted, corrected, characters lost) is said in the "
       "reply. Spaces, quotes and shell characters are typed literally; '\\n' presses "
       "Enter. Non-ASCII text needs the on-device dumper (--helper) or the ADBKeyBoard "
       "input method. A password or other credential: give secret (its name), not text.",
       {kRef, kSelector, kId, kDesc, text_param("text", "The text to type (or give secret)."),
        text_param("secret",
                   "Instead of text: the name of a secret the operator configured (the "
                   "secrets tool lists them); its value is typed but never shown, here or "
                   "anywhere."),
        flag_param("clear", "Delete the field's current text first."),
        flag_param("submit", "Press Enter after the text (search boxes, chat inputs)."),
        integer_param("settle_ms",
                      "How long to wait for the field to show the text (default 1000).", 0, 30000)},
       kAction,
       {"ref", "text"},
       true,
       false,
       ""});
  v.push_back({"secrets",
               "List secret names",
               "The names of the secrets the operator configured, for type's secret; never "
               "their values.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"scroll",
               "Scroll",
               "Scroll a scrollable element (ref or selector) or, without one, the screen, so "
               "that the content lying in `direction` comes into view (down shows what is "
               "below). Take a new snapshot afterwards to see it.",
               {kDirection, kRef, kSelector, kId, kText, kDesc},
               kNavigation,
               {"ref", "direction"},
               true,
               false,
               ""});
  v.push_back(
      {"swipe",
       "Swipe",
       "Swipe from one point to another (pixels, or fractions 0..1 with normalized). "
       "For lists prefer scroll, which aims inside the element.",
       {number_param("from_x", "Start x.", true), number_param("from_y", "Start y.", true),
        number_param("to_x", "End x.", true), number_param("to_y", "End y.", true), kNormalized,
        kSpace, integer_param("duration_ms", "How long the swipe takes (default 300).", 1, 60000)},
       kAction,
       {"from_x", "from_y", "to_x", "to_y"},
       true,
       false,
       ""});
  v.push_back(
      {"drag",
       "Drag",
       "Long-press an element (from_ref) or point (from_x, from_y), move it to another "
       "(to_ref, or to_x and to_y) and drop it: reorder lists, move icons.",
       {integer_param("from_ref", "The element to pick up.", 1, 0xFFFFFFFF),
        integer_param("to_ref", "The element to drop it on.", 1, 0xFFFFFFFF),
        number_param("from_x", "Start x."), number_param("from_y", "Start y."),
        number_param("to_x", "End x."), number_param("to_y", "End y."), kNormalized, kSpace},
       kAction,
       {"from_ref", "to_ref"},
       true,
       false,
       ""});
  v.push_back(
      {"pinch",
       "Pinch",
       "Two-finger pinch on an element (ref or selector), a point, or the middle of the screen: "
       "scale above 1 spreads the fingers (zoom in), below 1 closes them (zoom out). Needs "
       "the on-device dumper (capabilities lists multi_touch).",
       {number_param("scale", "Zoom factor, 0.1 to 10: 2 zooms in twice, 0.5 zooms out.", true),
        kRef, kSelector, kId, kText, kDesc, kX, kY, kNormalized, kSpace,
        integer_param("duration_ms", "How long the pinch takes (default 300).", 1, 60000)},
       kAction,
       {"scale"},
       true,
       false,
       ""});
  v.back().needs = Capability::multi_touch;
  v.push_back(
      {"gesture",
       "Gesture",
       "Any touch gesture of 1 to 10 fingers moving together: each finger's points as x,y "
       "separated by spaces, fingers separated by ';' (\"300,800 300,400; 700,800 700,400\" is "
       "a two-finger swipe up). More than one finger needs the on-device dumper.",
       {text_param("fingers",
                   "Each finger's path: x,y points separated by spaces; fingers "
                   "separated by ';'.",
                   true),
        kNormalized, kSpace,
        integer_param("duration_ms", "How long the gesture takes (default 300).", 0, 60000)},
       kAction,
       {"fingers"},
       true,
       false,
       ""});
  v.push_back({"press",
               "Press a key",
               "Press a key: back, home, enter, delete, tab, escape, up, down, left, right, "
               "space, power, volup, voldown, recent, menu, paste, a KEYCODE_* name or a number.",
               {text_param("key", "The key's name or number, for example enter.", true)},
               kAction,
               {"key"},
               true,
               false,
               ""});
  v.push_back({"back",
               "Go back",
               "Press Back: leaves the current screen or closes a dialog or the keyboard.",
               {},
               kNavigation,
               {},
               true,
               false,
               ""});
  v.push_back(
      {"home", "Go home", "Press Home: shows the launcher.", {}, kNavigation, {}, true, false, ""});
  v.push_back({"recent",
               "Recent apps",
               "Open the recent apps (overview) screen.",
               {},
               kNavigation,
               {},
               true,
               false,
               ""});
  v.push_back(
      {"find",
       "Find elements",
       "Take a fresh snapshot and list the elements matching text, id (resource-id), "
       "desc (content description), class (a class or role name) or an XPath query; "
       "several criteria must all match. Text matching is a case-insensitive substring "
       "unless exact. Each match shows its ref (or the ref around it), role and centre.",
       {text_param("text", "Text shown by the element."),
        text_param("id", "Resource id, such as com.example:id/submit or just submit."),
        text_param("desc", "Content description (accessibility label)."),
        text_param("class", "Class (android.widget.Switch, Switch) or role (Button)."),
        text_param("xpath", "An XPath 1.0 query on the dump, e.g. //node[@checked='true']."),
        flag_param("exact", "Match whole values only.")},
       kReadOnly,
       {"text"},
       true,
       false,
       ""});
  v.push_back(
      {"wait",
       "Wait for an element",
       "Take snapshots until an element matching the selector appears (or, with gone, "
       "until none is left), then return that snapshot (its refs are current). Use after "
       "an action that loads something. An error after timeout_ms. With seconds instead "
       "of a selector: a plain pause (an animation, a timer), nothing read.",
       {kSelector, kId, kText, kDesc, flag_param("gone", "Wait for it to disappear instead."),
        integer_param("timeout_ms", "How long to wait (default 10000).", 1, 120000),
        number_param("seconds", "A pause of this many seconds (0..600) instead of a selector.")},
       kReadOnly,
       {"selector"},
       true,
       false,
       ""});
  v.push_back({"screenshot",
               "Take a screenshot",
               "Capture the screen as an image, scaled to at most 2000 px a side and under 1 MB; "
               "the reply states its scale. With marks, every ref of the latest snapshot is "
               "drawn as a numbered box (the numbers are the refs: tap 7 taps box 7). Prefer "
               "snapshot to find and act on elements; on a screen with no accessible elements "
               "(games) the snapshot reads its text ([ocr] refs), or tap by x and y with space "
               "screenshot to give the image's own pixels.",
               {choice_param("format", "png (default, exact) or jpeg (smaller).", {"png", "jpeg"}),
                integer_param("quality", "JPEG quality 1..100 (default 80).", 1, 100),
                integer_param("max_side", "Longest side in pixels (default 2000).", 16, 2000),
                integer_param("display",
                              "A display id, as dumpsys SurfaceFlinger --display-id "
                              "lists them (default: the main display).",
                              0, std::numeric_limits<std::int64_t>::max()),
                flag_param("device_png", "Use the device's own PNG (slower on phones)."),
                flag_param("marks",
                           "Draw each ref of the latest snapshot as a box with its number "
                           "(a snapshot is taken first when there is none)."),
                flag_param("save", "Also save the image and return its path.")},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"page_source",
               "Save the raw screen XML",
               "Save the screen's raw uiautomator XML (every attribute of every node) to a file "
               "and return its path: for scripts, tests and cases the snapshot prunes away.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"record_start",
               "Start recording the screen",
               "Start recording the screen to an MP4 (Android's screenrecord, in the background "
               "on the device) while you act; record_stop saves it and returns its path. It ends "
               "by itself at time_limit_s. One recording per device at a time.",
               {integer_param("time_limit_s",
                              "At most this many seconds (default 180, the most "
                              "screenrecord allows).",
                              1, 180),
                integer_param("bit_rate_mbps", "Video bit rate in Mbit/s (default 4).", 1, 100)},
               {.read_only = false, .destructive = false, .idempotent = false},
               {"time_limit_s"},
               true,
               false,
               ""});
  v.push_back({"record_stop",
               "Stop recording and save the video",
               "Stop the screen recording record_start began (or take it if it already reached "
               "its time limit), copy the MP4 to this computer and return its path.",
               {},
               {.read_only = false, .destructive = false, .idempotent = false},
               {},
               true,
               false,
               ""});
  add_trajectory_verbs(v);
  v.push_back({"webviews",
               "List web pages",
               "List the debuggable WebViews and browser tabs (debug builds, apps that enable "
               "WebView debugging, Chrome): type, title, URL and app. Visible ones already "
               "appear inside snapshot with refs.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"launch",
               "Launch an app",
               "Start an app through its launcher entry, or a given activity: by package name "
               "or by its name as the launcher shows it (\"Settings\", part of a name, a small "
               "typo). Several close matches are an error that lists them. The apps verb lists "
               "the packages.",
               {text_param("package", "A package name, or the app's label or part of it.", true),
                text_param("activity",
                           "An activity instead of the launcher entry, "
                           "such as .MainActivity.")},
               kAction,
               {"package", "activity"},
               true,
               false,
               ""});
  v.push_back({"stop",
               "Stop an app",
               "Force-stop an app (its activities and services end).",
               {kPackage},
               kAction,
               {"package"},
               true,
               false,
               ""});
  v.push_back({"open_url",
               "Open a URL or intent",
               "Open a URL as tapping a link does (https:, geo:, tel:, market:, an app's deep "
               "link), or start an intent by action and data, optionally in one package or "
               "activity, with a category or shared text.",
               {text_param("url", "The URL or URI to view."),
                text_param("action", "An intent action, e.g. android.intent.action.SEND."),
                text_param("data", "The intent's data URI."),
                text_param("package", "Only this app may take it."),
                text_param("activity", "Exactly this activity: PACKAGE/ACTIVITY."),
                text_param("category", "An intent category."),
                text_param("text", "Shared text (the EXTRA_TEXT extra).")},
               kAction,
               {"url"},
               true,
               false,
               ""});
  v.push_back({"foreground",
               "Foreground app",
               "Which app and activity are in the foreground now.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"apps",
               "List apps",
               "List the installed packages with their labels (labels need the on-device "
               "dumper), optionally filtered.",
               {text_param("filter", "Only packages whose name or label contains this."),
                flag_param("system", "Only the system image's packages (pm -s)."),
                flag_param("third_party", "Only the packages the user installed (pm -3).")},
               kReadOnly,
               {"filter"},
               true,
               false,
               ""});
  v.push_back({"install",
               "Install an app",
               "Install an APK file from this computer (streamed to the device). Only an APK "
               "inside a folder the server allows (adbwire mcp --allow-install-from DIR).",
               {text_param("path", "The APK file's path on this computer.", true)},
               kAction,
               {"path"},
               true,
               false,
               ""});
  v.push_back({"push",
               "Copy a file to the device",
               "Copy a file of this computer to the device (sync, as adb push). Only a file "
               "inside a folder the server allows (adbwire mcp --allow-install-from DIR).",
               {text_param("path", "The file's path on this computer.", true),
                text_param("remote",
                           "Where the copy goes on the device: a file path, or a folder ending "
                           "in / that takes the file's name (e.g. /sdcard/Download/).",
                           true)},
               kAction,
               {"path", "remote"},
               true,
               false,
               ""});
  v.push_back(
      {"pull",
       "Copy a file from the device",
       "Copy a file or folder of the device to this computer (sync, as adb pull). Only "
       "into a folder the server allows (adbwire mcp --allow-install-from DIR); the copy "
       "appears whole or not at all.",
       {text_param("remote", "The device's file or folder, e.g. /sdcard/DCIM/a.jpg.", true),
        text_param("path", "The copy's path on this computer (its folder must exist).", true)},
       {.read_only = false, .destructive = true, .idempotent = true},
       {"remote", "path"},
       true,
       false,
       ""});
  v.push_back({"uninstall",
               "Uninstall an app",
               "Remove an app and its data.",
               {kPackage},
               kAction,
               {"package"},
               true,
               false,
               ""});
  v.push_back({"notifications",
               "Open notifications",
               "Pull down the notification shade; take a snapshot to read the notifications.",
               {},
               kNavigation,
               {},
               true,
               false,
               ""});
  v.push_back(
      {"rotate",
       "Rotate the screen",
       "Lock the screen's rotation (auto-rotate off) at an orientation.",
       {choice_param("orientation", "The orientation.",
                     {"portrait", "landscape", "reverse_portrait", "reverse_landscape"}, true)},
       kNavigation,
       {"orientation"},
       true,
       false,
       ""});
  v.push_back({"clipboard_get",
               "Read the clipboard",
               "The clipboard's text (needs the on-device dumper, --helper).",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.back().needs = Capability::clipboard;
  v.push_back({"clipboard_set",
               "Set the clipboard",
               "Put text on the clipboard (needs the on-device dumper, --helper); press paste "
               "in a field to insert it.",
               {text_param("text", "The text.", true)},
               kAction,
               {"text"},
               true,
               false,
               ""});
  v.back().needs = Capability::clipboard;
  v.push_back({"date",
               "Device date",
               "The device's clock: its date and time now.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"setting_get",
               "Read a setting",
               "A value of Android's settings provider (settings get).",
               {text_param("key", "The setting's key, e.g. screen_off_timeout.", true), kNamespace},
               kReadOnly,
               {"key", "namespace"},
               true,
               false,
               ""});
  v.push_back({"setting_put",
               "Change a setting",
               "Set a value of Android's settings provider (settings put).",
               {text_param("key", "The setting's key.", true),
                text_param("value", "The new value.", true), kNamespace},
               kAction,
               {"key", "value", "namespace"},
               true,
               false,
               ""});
  v.push_back({"logs",
               "Read the log",
               "Recent lines of the device log (logcat), optionally filtered by adb filter specs "
               "(\"ActivityManager:I *:S\") and by a text the tag or message contains. With "
               "follow, the log keeps being read: each call returns the lines after the cursor "
               "it is given (waiting up to a second for one) and the cursor to pass next.",
               {integer_param("lines",
                              "How many of the newest lines (default 100); with follow, at most "
                              "this many a call.",
                              1, 10000),
                text_param("filter", "adb filter specs, space separated: TAG:LEVEL, *:LEVEL."),
                text_param("contains", "Only lines whose tag or message contains this."),
                flag_param("follow",
                           "Keep reading the log and return the lines after cursor (the first "
                           "call starts with the newest `lines`)."),
                integer_param("cursor",
                              "With follow: the cursor the previous call returned (leave it out "
                              "on the first call).",
                              0, std::numeric_limits<std::int64_t>::max())},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"capabilities",
               "What the device can do",
               "The Android version, screen size, input method and what is supported "
               "(snapshot, input, unicode_text, clipboard, drag_and_drop, screenshot, install, "
               "settings, notifications, multi_touch, app_labels, …).",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"devices",
               "List devices",
               "List the devices reachable: those a running adb server lists and those this "
               "server is connected to. Pass one as `device` to any other verb.",
               {},
               kWorld,
               {},
               false,
               false,
               ""});
  v.push_back({"connect",
               "Connect to a device",
               "Connect to a device and keep the connection for later calls (other verbs "
               "connect on first use). If the phone shows 'Allow USB debugging?', ask the person "
               "to accept it.",
               {text_param("target",
                           "tcp:HOST:PORT, HOST:PORT, an adb serial (through the adb "
                           "server) or server:HOST:PORT/SERIAL.",
                           true)},
               {.read_only = false, .destructive = false, .idempotent = true, .open_world = true},
               {"target"},
               false,
               false,
               ""});
  const Param kSettleTimeout = integer_param(
      "timeout_ms", "How long the device may take to show the new state (default 5000).", 100,
      60000);
  const Param kRadioState =
      choice_param("state", "on or off; without it, say whether it is on.", {"on", "off"});
  v.push_back({"battery",
               "Read the battery",
               "The battery's level (percent), status (charging, discharging, full …), what "
               "powers it, temperature (°C) and voltage, from `dumpsys battery`.",
               {},
               kReadOnly,
               {},
               true,
               false,
               ""});
  v.push_back({"sensors",
               "List the sensors",
               "The device's sensors (accelerometer, gyroscope, light, proximity …): name, "
               "vendor and type, from `dumpsys sensorservice`.",
               {text_param("filter", "Only sensors whose name, vendor or type contains this.")},
               kReadOnly,
               {"filter"},
               true,
               false,
               ""});
  // wifi, data and airplane: the same parameters and answers, one radio each.
  const auto radio_verb = [&](std::string_view name, std::string_view title,
                              std::string_view description) {
    v.push_back({name,
                 title,
                 description,
                 {kRadioState, kSettleTimeout},
                 kNavigation,
                 {"state"},
                 true,
                 false,
                 ""});
  };
  radio_verb("wifi", "Turn Wi-Fi on or off",
             "Turn Wi-Fi on or off (svc wifi) and read the state back: an error says so when the "
             "device did not change (a device policy). Without state: whether it is on.");
  radio_verb("data", "Turn mobile data on or off",
             "Turn mobile data on or off (svc data) and read the state back: an error says so "
             "when the device did not change (no SIM, a policy). Without state: whether it is "
             "on.");
  radio_verb("airplane", "Turn airplane mode on or off",
             "Turn airplane mode on or off (cmd connectivity airplane-mode on Android 11+, the "
             "setting and its broadcast before) and read the state back. Airplane mode cuts "
             "Wi-Fi and mobile data, and a device on Wi-Fi debugging with it. Without state: "
             "whether it is on.");
  v.push_back(
      {"camera",
       "Take a photo",
       "Take a photo with the device's camera app (the still-image intent, then the "
       "camera key as the shutter), pull the new photo from DCIM/Camera to a private "
       "file on this computer and return its path, with the photo shown scaled down.",
       {integer_param("timeout_ms", "How long the new photo may take to appear (default 10000).",
                      1000, 120000)},
       kAction,
       {},
       true,
       false,
       ""});
  const Param kReach = choice_param(
      "reach",
      "Which notes: app (default: this device's notes for the app in front and for every app), "
      "device (all of this device's) or all (every device's).",
      {"app", "device", "all"});
  v.push_back({"remember",
               "Remember a note",
               "Keep a note for later sessions (what you learnt about this app: where a setting "
               "is, what a screen needs), in this computer's memory database, tagged with this "
               "device and the app in front. recall finds it again.",
               {text_param("text", "What to remember (at most 4096 bytes).", true),
                flag_param("device_wide",
                           "For every app of this device, not only the one in "
                           "front.")},
               kNavigation,
               {"text"},
               true,
               false,
               ""});
  v.push_back({"recall",
               "Recall notes",
               "The notes remembered earlier for this device and the app in front (or wider, "
               "with reach), the best matches of query first (full-text: every word must "
               "appear), else the newest first.",
               {text_param("query", "Words the notes must contain."), kReach,
                integer_param("limit", "At most this many notes (default 20).", 1, 200)},
               kReadOnly,
               {"query"},
               true,
               false,
               ""});
  v.push_back({"forget",
               "Forget notes",
               "Delete remembered notes: one by its id (recall shows it in brackets), those "
               "within reach matching query, or all within reach (with the observations of "
               "screens there); or only the observations within reach.",
               {integer_param("id", "The note's id.", 1, std::numeric_limits<std::int64_t>::max()),
                text_param("query", "Forget the notes containing every word of this."),
                flag_param("all", "Forget every note and observation within reach."),
                flag_param("observations", "Forget only the observations of screens within reach."),
                kReach},
               kAction,
               {"id"},
               true,
               false,
               ""});
  v.push_back({"observations",
               "What was done on this screen before",
               "The observation cache of this screen (its fingerprint: the app and the "
               "structure of its elements, not their text): how often it was seen and the "
               "actions done on it earlier, with what followed each (the next screen, or the "
               "error). Recorded when the session or server runs with --observe.",
               {text_param("screen",
                           "Another screen's fingerprint (an outcome names it); default: the "
                           "screen of the latest snapshot."),
                integer_param("limit", "At most this many actions (default 20).", 1, 200)},
               kReadOnly,
               {"screen"},
               true,
               false,
               ""});
  v.push_back({"shell",
               "Run a shell command",
               "Run a command in the device's shell and return its exit code and output.",
               {text_param("command", "The command line (sh -c).", true),
                integer_param("timeout_ms", "How long it may run (default 30000).", 1, 600000)},
               kAction,
               {"command"},
               true,
               true,
               ""});
  v.push_back({"pair",
               "Pair with a phone for Wireless debugging",
               "Pair this computer with an Android 11+ phone, as `adb pair`, so its Wireless "
               "debugging port takes this computer's key from now on. Ask the person to open "
               "Settings > Developer options > Wireless debugging > Pair device with pairing code "
               "and read out the HOST:PORT and the 6-digit code it shows. Then connect to the "
               "returned GUID (or the address under 'IP address & Port', another port).",
               {text_param("address", "HOST:PORT the pairing dialog shows.", true),
                text_param("code", "The pairing code the dialog shows.", true)},
               {.read_only = false, .destructive = false, .idempotent = true, .open_world = true},
               {"address", "code"},
               false,
               false,
               "",
               std::nullopt,
               true});
  return v;
}

}  // namespace

std::span<const Verb> all() noexcept {
  static const std::vector<Verb> table = make_table();
  return table;
}

const Verb* find(std::string_view name) noexcept {
  for (const Verb& verb : all()) {
    if (verb.name == name) return &verb;
  }
  return nullptr;
}

}  // namespace adbwire::verbs
