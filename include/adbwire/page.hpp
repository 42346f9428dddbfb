// The agent API: connect once, then snapshot → act → snapshot over one open connection,
// with no process spawned and no reconnect per step (docs/design.md, Interactions).
//
//   adbwire::Page page = adbwire::Page::connect("tcp:127.0.0.1:5555");
//   std::puts(page.snapshot().to_text().c_str());   // - Button [ref=3] "Add item"
//   page.tap(3);
//   page.type(5, "two apples", {.clear = true});
//
// Errors: every blocking call comes twice, `op(args)` throwing adbwire::Error and
// `op(args, std::error_code&)` setting the code; after a failure the error_code form leaves
// the message the exception would carry in last_error(), and its detail in
// last_error_detail() (error_detail.hpp). Codes common to all calls:
// timeout, device_offline, closed (from the connection); command_failed (the device ran
// the command and reported failure: the message quotes its output). Every blocking call
// ends by its deadline (kDefaultDeadline: now + ConnectOptions::command_timeout).
//
// Stale refs: an action on a ref names an element of the last snapshot(). The screen can change
// by itself since (an async load, a dialog, a list that re-lays out or scrolls), so by default
// every action on a ref first re-reads the screen and acts only where the ref's exact token, or
// else exactly one identity token, is found (ui::find_ref; both name the row the element lives
// in, so the same button of another row is another element); otherwise it fails with stale_ref,
// saying whether the element is gone, now ambiguous, or one of look-alikes that moved, and sends
// nothing. last_ref_checks() says when an element had moved and where the action went, and when
// it is disabled. PageOptions::ref_check relaxes this, at a named risk.
//
// Page is snapshot, act and wait. Its app, settings and screen calls forward to the device
// services of apps.hpp, settings.hpp, screen_control.hpp, install.hpp and device_state.hpp,
// which work on a Device without a Page; Page adds the capability checks, its deadline and
// the trajectory.
//
// Thread safety: a Page is for one caller at a time (it keeps the ref map); use one Page
// per thread, or lock around it. The Device it holds may be shared with other users.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/apps.hpp"
#include "adbwire/connect_options.hpp"
#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"
#include "adbwire/screen_control.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/settings.hpp"
#include "adbwire/ui.hpp"

namespace adbwire {

class Trajectory;

// When an action on a ref re-reads the screen before acting. One read costs one dump: about a
// millisecond with the on-device dumper (PageOptions::helper), a second or more with
// `uiautomator dump` on a phone (bench/ref_check_bench measures both).
enum class RefCheck {
  // Before every action on a ref (default): a ref never acts on the wrong element.
  always,
  // Only after this Page acted since the snapshot. Risk: a screen that changed by itself (an
  // async load, a dialog, a re-laid-out list) is not noticed, and the action lands on whatever
  // is now where the element was.
  when_changed,
  // Never: trust the last snapshot. Fastest; the same risk after every action too.
  never,
};

// "always", "when_changed", "never".
std::string_view to_string(RefCheck check) noexcept;
// The inverse of to_string; false for anything else.
bool parse_ref_check(std::string_view text, RefCheck& out) noexcept;

// How an action found the element a ref names (Page::last_ref_checks()).
struct RefCheckReport {
  std::uint32_t ref = 0;
  bool checked = false;   // the screen was read again first (PageOptions::ref_check)
  bool moved = false;     // found by identity at other bounds: the action went where it is now
  bool disabled = false;  // the element is disabled (enabled="false") where the action went:
                          // the app may ignore it
  ui::Bounds issued;      // its bounds in the snapshot that issued the ref
  ui::Bounds acted;       // its bounds where the action went
};

// How type() makes sure its text lands (PageOptions::typing).
struct TypingOptions {
  // After the tap that focuses the field, the text waits until the field shows focused — when
  // that is cheap to see (the on-device dumper answers a dump in about a millisecond), polling
  // up to focus_wait — else for `settle`, the time a keyboard takes to come up on a phone.
  std::chrono::milliseconds settle{200};
  std::chrono::milliseconds focus_wait{1500};
  // With a ref check on, read the field back after typing (skipped for password fields, and
  // when the text has a line break or submit is set, which may send the field away): the
  // field is read until it shows the text or `read_back_settle` passed (fields often show
  // typed text a moment late); TypeOptions::settle overrides it per call.
  bool read_back = true;
  std::chrono::milliseconds read_back_settle{1000};
};

// Human-like input (PageOptions::stealth, DroidRun's StealthDriver). Ref checks apply as always.
// The distributions (src/agent/stealth.hpp, the README's Stealth section): a tap lands at a point
// of the element's clear area (inside its bounds, never on a descendant or overlapping element
// with a ref of its own) drawn from a normal around the centre; each action waits a log-normal
// pause first (median 400 ms); typed ASCII text goes one character a command with log-normal
// pauses between (median 110 ms); a swipe lasts its time × U(0.85, 1.25) along a slightly
// curved path (through the on-device dumper's gestures where it runs, else `input swipe`
// segments).
struct StealthOptions {
  bool on = false;
  // The same seed, the same points and pauses for the same calls; 0 draws one from the system.
  std::uint64_t seed = 0;
};

struct PageOptions {
  ui::SnapshotOptions snapshot;
  StealthOptions stealth;
  RefCheck ref_check = RefCheck::always;
  // Attempts of one snapshot when uiautomator reports a busy screen ("could not get idle
  // state") or a null root node, and the pause between them.
  std::uint32_t dump_attempts = 3;
  std::chrono::milliseconds dump_retry_pause{250};
  // Gesture timings (docs/design.md, Interactions: long-press 1000 ms).
  std::chrono::milliseconds long_press{1000};
  std::chrono::milliseconds swipe{300};
  std::chrono::milliseconds drag{1500};
  // How the dump comes back. automatic: `uiautomator dump /dev/tty` first, and when that
  // yields no XML (API 35+ broke it) the file method from then on. file: dump to a file
  // under /data/local/tmp and `cat` it in the same exec stream. tty: /dev/tty only.
  enum class DumpMethod { automatic, file, tty } dump_method = DumpMethod::automatic;
  // Where the file method writes the dump. Empty: a name of our own under /data/local/tmp
  // (unique per Page).
  std::string dump_path;
  // Fast snapshots through adbwire's on-device dumper (EXPERIMENTAL, unverified on hardware;
  // src/agent/dumper/README.md): a dex pushed once to /data/local/tmp and kept running in one
  // exec stream, answering dumps without starting uiautomator each time. automatic: used
  // while it works; on its first failure snapshots use `uiautomator dump` from then on and
  // on_warning is called once. on: its failures are snapshot()'s errors. off: never pushed
  // nor started.
  enum class Helper { automatic, on, off } helper = Helper::off;
  // The idle wait of one dump through the helper (UiAutomation.waitForIdle's quiet window and
  // longest wait; `uiautomator dump` uses 1000 ms and 10000 ms).
  std::chrono::milliseconds helper_idle_quiet{500};
  std::chrono::milliseconds helper_idle_max{5000};
  // Longest the helper may take to start, or to answer a dump beyond helper_idle_max, before
  // it counts as hung.
  std::chrono::milliseconds helper_timeout{5000};
  // Called (on the caller's thread) with a person-readable message when Helper::automatic
  // falls back to `uiautomator dump`: why, and how to turn the helper off. Empty: no call
  // (Page::helper_status() keeps the message either way).
  std::function<void(std::string_view)> on_warning;
  // The content of debuggable WebViews inside the snapshot (webview.hpp: debug builds, apps
  // that call WebView.setWebContentsDebuggingEnabled(true), Chrome), read over the Chrome
  // DevTools Protocol through ADB: the page's elements appear under the WebView's line, with
  // refs like native ones (class "web.<AX role>"). Costs a few round trips per snapshot, and
  // only when a WebView is on the screen. A WebView whose page cannot be read keeps its native
  // content; web_status() says why. false: native content only (the CLI's --no-web).
  bool web = true;
  // How tap() reaches a web element. screen: `input tap` at its box (mapped from CSS pixels to
  // the screen through the WebView's bounds and the page's viewport), as for native elements;
  // works where a page blocks script input. cdp: a left click dispatched through CDP
  // (Input.dispatchMouseEvent) at the element's box as the page reports it at that moment.
  enum class WebInput { screen, cdp } web_input = WebInput::screen;
  // Longest the WebView part of one snapshot may take (all its DevTools round trips): a page
  // that hangs costs this, then the snapshot goes on with the native content.
  std::chrono::milliseconds web_timeout{5000};
  TypingOptions typing;
  // Text read from the screen's pixels (Tesseract, English; ocr.hpp). automatic: when the app's
  // windows hold no ref (a game, a custom-drawn screen), the snapshot takes a screenshot, reads
  // its text and lists each word group as `- Text [ref=N] "PLAY" [ocr]` in reading order; a tap
  // on such a ref goes to the centre of its box after the same check as any ref (the pixels are
  // read again). Screens with an element to act on cost nothing. A reading that fails (no
  // screencap, Tesseract's model missing) leaves the tree as it is, ocr_status().problem saying
  // why. on: on every screen, after the tree's own refs; its failures are the snapshot's. off:
  // never. ocr_status() says what the last snapshot's reading cost.
  enum class Ocr { automatic, on, off } ocr = Ocr::automatic;
  // Budget of a call made with kDefaultDeadline, all its device round trips included.
  std::chrono::milliseconds timeout{30000};
  // Record every call with its arguments, result, timing and the snapshots around it
  // (see trajectory.hpp), and with TrajectoryOptions::screenshots the screen after each
  // action. nullptr: no recording.
  std::shared_ptr<Trajectory> trajectory;
};

struct TypeOptions {
  bool clear = false;   // delete the field's current text first
  bool submit = false;  // press Enter after the text
  // How long the read-back waits for the field to show the text; nullopt:
  // PageOptions::typing.read_back_settle.
  std::optional<std::chrono::milliseconds> settle = std::nullopt;
  // Non-empty: the text is the secret of this name (a password the agent never sees). It is
  // sent to the device and nowhere else: the trajectory records "<secret NAME>", the read-back
  // compares without returning what the field reads (TypeResult's before and reads stay
  // empty), an error never quotes it, and non-ASCII is refused rather than put on the
  // clipboard, which other apps read (ADBKeyBoard types it).
  std::string secret_name = {};
};

// What type() found in the field afterwards.
struct TypeResult {
  enum class Check {
    as_typed,           // the field shows the text (whole, or after what it held)
    reads_differently,  // it changed but reads otherwise: the app formatted, corrected or
                        // capitalised it, or characters were lost (`reads` says which text)
    not_checked,        // not read back: `why` says why
  };
  Check check = Check::not_checked;
  std::string before;  // what the field held before typing (as_typed, reads_differently)
  std::string reads;   // what it holds after (as_typed, reads_differently)
  std::string why;     // not_checked: "a password field is never read back", …
};

enum class Direction { up, down, left, right };

// A point for the coordinate actions: pixels, or with normalized = true fractions 0..1 of
// the screen's width and height (as the last snapshot's rotation shows it), or with
// in_screenshot = true pixels of the last screenshot this Page took (Page::screenshot), scaled
// back to the screen by that screenshot's scale.
struct ScreenPoint {
  double x = 0;
  double y = 0;
  bool normalized = false;
  bool in_screenshot = false;
};

// A screenshot taken through a Page (Page::screenshot with options).
struct PageScreenshot {
  EncodedImage image;          // its screen_width and screen_height give the scale
  std::uint32_t marks = 0;     // refs drawn on it (marks on)
  std::uint32_t refs = 0;      // refs of the snapshot the marks came from
  bool took_snapshot = false;  // marks on and no snapshot was held: one was taken for them
};

// What the last snapshot's text recognition did (PageOptions::ocr).
struct OcrStatus {
  bool ran = false;                   // the screen's pixels were read
  std::uint32_t texts = 0;            // word groups added, each with a ref
  std::chrono::milliseconds took{0};  // screenshot and reading
  std::string problem;                // why it could not run ("" when it ran or was not needed)
};

// What a device can do, from one probe (Page::capabilities()).
enum class Capability : std::uint32_t {
  snapshot,          // uiautomator dump
  input,             // input tap/swipe/keyevent/text (ASCII text)
  unicode_text,      // non-ASCII type(): ADBKeyBoard is the active input method, or the
                     // clipboard (below) and KEYCODE_PASTE
  clipboard,         // clipboard_set/get: stock Android has no shell command for it; adbwire's
                     // on-device dumper calls the clipboard service (PageOptions::helper on)
  drag_and_drop,     // input draganddrop (Android 12, API 31+); else drag() uses a slow swipe
  screenshot,        // screencap -p
  install,           // streamed install (cmd package install -S, API 24+)
  settings,          // settings get/put (cmd settings)
  notifications,     // cmd statusbar expand-notifications (API 24+)
  dismiss_keyguard,  // wm dismiss-keyguard (API 26+)
  multi_touch,       // pinch() and gesture(): the on-device dumper injects MotionEvents
  app_labels,        // app_labels(): the on-device dumper reads PackageManager
};

class Capabilities {
 public:
  bool has(Capability c) const noexcept { return (bits_ >> static_cast<std::uint32_t>(c)) & 1U; }
  void set(Capability c, bool on = true) noexcept {
    const std::uint32_t bit = 1U << static_cast<std::uint32_t>(c);
    bits_ = on ? bits_ | bit : bits_ & ~bit;
  }
  // The names of what is supported ("snapshot", "input", …), in enum order.
  std::vector<std::string_view> names() const;
  std::uint32_t sdk = 0;     // ro.build.version.sdk (0 when unreadable)
  ui::Point screen_size;     // physical pixels in natural orientation (wm size)
  std::string input_method;  // settings secure default_input_method

 private:
  std::uint32_t bits_ = 0;
};

// The name of a capability ("unicode_text"), for messages and `adbwire capabilities`.
std::string_view to_string(Capability c) noexcept;

// How `uiautomator dump` failed, read from what it printed (it reports most failures as
// text with exit status 0).
enum class DumpFailure {
  none,             // the output holds a hierarchy
  idle_timeout,     // "could not get idle state": the screen kept changing
  null_root,        // "null root node returned by UiTestAutomationBridge" (transient)
  automation_busy,  // "UiAutomationService … already registered": another tool holds it
  killed,           // "Killed": the dump process was killed (memory, watchdog)
  no_xml,           // no hierarchy in the output (empty or missing file, other text)
};
DumpFailure classify_dump_output(std::string_view output) noexcept;

// Whether snapshots go through the on-device dumper (PageOptions::helper).
struct HelperStatus {
  bool in_use = false;     // the last snapshot came from the helper
  bool fell_back = false;  // automatic mode gave up on it for this Page
  std::string last_error;  // why it last failed, "" when it never did
  // Why touch gestures went back to `input` for this Page (the dumper could not inject them);
  // "" while taps, swipes and pinches go through the helper.
  std::string input_error;
};

// What the last snapshot's WebView bridge did (PageOptions::web).
struct WebStatus {
  std::uint32_t webviews = 0;   // WebView nodes on the screen
  std::uint32_t pages = 0;      // of them, shown from a debuggable page
  std::uint32_t web_nodes = 0;  // elements added from those pages
  std::string problem;          // why a WebView kept its native content only ("" when none did)
};

class Page {
 public:
  // Connects to target (Device::connect's forms and errors).
  static Page connect(std::string_view target, PageOptions options = {},
                      const ConnectOptions& connect_options = {});
  static Page connect(std::string_view target, PageOptions options,
                      const ConnectOptions& connect_options, std::error_code& error);

  // A Page over an open Device. Issues no command.
  explicit Page(Device device, PageOptions options = {});
  Page(Page&&) noexcept;
  Page& operator=(Page&&) noexcept;
  ~Page();

  Device& device() noexcept;
  const PageOptions& options() const noexcept;
  // The message of the last failed call (either form), "" when none failed yet.
  const std::string& last_error() const noexcept;

  // ---- Snapshot
  // Dumps the screen with uiautomator and streams the XML back in one exec stream, parses
  // it and keeps it: its refs are the ones later actions take. Valid until the next
  // snapshot(), wait_for_*() or move/destruction of the Page. Retries a busy screen and a
  // null root node (PageOptions::dump_attempts). Errors: timeout (the screen never settled:
  // "could not get idle state" every time), busy (another UiAutomation client holds the
  // single slot: stop uiautomator2, Appium or Maestro), command_failed (Killed, null root
  // every time, no XML), parse_error (malformed XML). With PageOptions::helper = on also the
  // helper's own failures: timeout (it did not answer within helper_timeout), protocol_error
  // (it answered no reply frame), command_failed (it could not start, or died twice in a row).
  // The error_code form returns an empty snapshot on error and keeps the previous one for refs.
  const ui::Snapshot& snapshot(Deadline deadline = kDefaultDeadline);
  const ui::Snapshot& snapshot(Deadline deadline, std::error_code& error);
  // The snapshot the refs refer to (empty before the first snapshot()).
  const ui::Snapshot& last_snapshot() const noexcept;
  // The XML of the last dump, as the device sent it plus the web elements PageOptions::web
  // added under WebView nodes.
  const std::string& last_dump() const noexcept;
  // The on-device dumper's state for this Page.
  const HelperStatus& helper_status() const noexcept;
  // The WebView bridge's report on the last snapshot.
  const WebStatus& web_status() const noexcept;
  // The text recognition's report on the last snapshot.
  const OcrStatus& ocr_status() const noexcept;
  // Changes PageOptions::ocr for the snapshots to come.
  void set_ocr(PageOptions::Ocr mode) noexcept;
  // How the last call found the elements of the refs it acted on (empty when it took none).
  std::span<const RefCheckReport> last_ref_checks() const noexcept;

  // Starts recording every call from now on into trajectory (as PageOptions::trajectory does
  // from the start), or stops with nullptr. Secrets typed before are masked in it too. Returns
  // the recording that ran until now (nullptr when none).
  std::shared_ptr<Trajectory> record(std::shared_ptr<Trajectory> trajectory);
  // The recording running, or nullptr.
  const std::shared_ptr<Trajectory>& recording() const noexcept;

  // ---- Actions on refs of the last snapshot. Errors also: not_found (no such ref, or no
  // snapshot yet), stale_ref (see the top of this file).
  void tap(std::uint32_t ref, Deadline deadline = kDefaultDeadline);
  void tap(std::uint32_t ref, Deadline deadline, std::error_code& error);
  void long_press(std::uint32_t ref, Deadline deadline = kDefaultDeadline);
  void long_press(std::uint32_t ref, Deadline deadline, std::error_code& error);
  // Taps the field, waits until it has focus (PageOptions::typing), then sends the text as one
  // shell command: word by word `input text` (shell-quoted, "%s" split so it stays literal)
  // with KEYCODE_SPACE between words, KEYCODE_ENTER for '\n' and KEYCODE_TAB for '\t'; with a
  // ref check on, reads the field back (a web field through the DevTools protocol) until it
  // shows the text or the settle time passed, and returns what it reads. Non-ASCII text goes
  // through ADBKeyBoard when it is the active input method, else the clipboard (with the
  // on-device dumper); else not_supported naming the options (never a silently dropped
  // character). Errors also: invalid_argument, with nothing sent, for an element that takes no
  // text (not an EditText, a Compose or web text field: the message names the fields on the
  // screen) and for other control characters; command_failed when nothing arrived (the field
  // reads as before, quoted). A field that changed but reads otherwise is no error: the result
  // says what it reads, for the caller to judge (formatting, autocorrect, lost characters).
  TypeResult type(std::uint32_t ref, std::string_view text, TypeOptions options = {},
                  Deadline deadline = kDefaultDeadline);
  TypeResult type(std::uint32_t ref, std::string_view text, TypeOptions options, Deadline deadline,
                  std::error_code& error);
  // A swipe inside the element's bounds from its centre a third of its size, moving the
  // content so that what lies in `direction` comes into view.
  void scroll(std::uint32_t ref, Direction direction, Deadline deadline = kDefaultDeadline);
  void scroll(std::uint32_t ref, Direction direction, Deadline deadline, std::error_code& error);
  // Long-press on `from`, move to `to`, release (input draganddrop, or a slow swipe).
  void drag(std::uint32_t from, std::uint32_t to, Deadline deadline = kDefaultDeadline);
  void drag(std::uint32_t from, std::uint32_t to, Deadline deadline, std::error_code& error);

  // ---- Actions on coordinates. invalid_argument for a point off the screen or a
  // normalized coordinate outside 0..1.
  void tap_at(ScreenPoint at, Deadline deadline = kDefaultDeadline);
  void tap_at(ScreenPoint at, Deadline deadline, std::error_code& error);
  void long_press_at(ScreenPoint at, Deadline deadline = kDefaultDeadline);
  void long_press_at(ScreenPoint at, Deadline deadline, std::error_code& error);
  // Long-press at `from`, move to `to`, release (input draganddrop, or a slow swipe).
  void drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline = kDefaultDeadline);
  void drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline, std::error_code& error);
  // duration 0: PageOptions::swipe.
  void swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration = {},
             Deadline deadline = kDefaultDeadline);
  void swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
             Deadline deadline, std::error_code& error);

  // With the on-device dumper (PageOptions::helper) taps, long presses, swipes and scrolls are
  // MotionEvents it injects (UiAutomation.injectInputEvent: no `input` process started per
  // action); a dumper that cannot inject hands them back to `input` (helper_status()).

  // ---- Multi-touch, through the on-device dumper only (`input` has no multi-touch).
  // not_supported without it (PageOptions::helper off, or it could not inject: the message
  // says why).
  // Two fingers on the element's horizontal centre line spread (scale > 1: zoom in) or close
  // (scale < 1: zoom out) by that factor, the wider span 80% of the element's smaller side.
  // invalid_argument for a scale outside 0.1..10 or of 1. duration 0: PageOptions::swipe.
  void pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration = {},
             Deadline deadline = kDefaultDeadline);
  void pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration, Deadline deadline,
             std::error_code& error);
  // The same around a point, the wider span 80% of the screen's smaller side (fingers that
  // would leave the screen stop at its edge).
  void pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration = {},
                Deadline deadline = kDefaultDeadline);
  void pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration,
                Deadline deadline, std::error_code& error);
  // Any gesture of 1 to 10 fingers: each passes its points (each segment an equal share of
  // the time); all touch at once and lift together after duration (0..60 s). A one-finger
  // gesture of one or two points works without the dumper too (`input swipe`).
  // invalid_argument for no finger, more than 10, a finger without points, a point off the
  // screen, or a duration out of range.
  void gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
               std::chrono::milliseconds duration, Deadline deadline = kDefaultDeadline);
  void gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
               std::chrono::milliseconds duration, Deadline deadline, std::error_code& error);

  // ---- Keys. key: back, home, enter, delete, tab, escape, up, down, left, right, space,
  // power, volup, voldown, recent, menu, paste, a KEYCODE_* name or a number.
  // invalid_argument for an unknown name.
  void press(std::string_view key, Deadline deadline = kDefaultDeadline);
  void press(std::string_view key, Deadline deadline, std::error_code& error);
  void back(Deadline deadline = kDefaultDeadline);
  void back(Deadline deadline, std::error_code& error);
  void home(Deadline deadline = kDefaultDeadline);
  void home(Deadline deadline, std::error_code& error);
  void recent(Deadline deadline = kDefaultDeadline);
  void recent(Deadline deadline, std::error_code& error);

  // ---- Apps (apps.hpp, install.hpp: launch_app, stop_app, foreground_activity,
  // list_packages, install, uninstall). launch: monkey's launcher intent, or `am start -n` with
  // an activity. Errors also: not_found (no such package or activity), invalid_argument (a name
  // with characters no package has).
  void launch(std::string_view package, std::string_view activity = {},
              Deadline deadline = kDefaultDeadline);
  void launch(std::string_view package, std::string_view activity, Deadline deadline,
              std::error_code& error);
  void stop(std::string_view package, Deadline deadline = kDefaultDeadline);
  void stop(std::string_view package, Deadline deadline, std::error_code& error);
  // The foreground app from every source Android offers: the resumed activity (dumpsys
  // activity), else the window manager's focus (dumpsys window), else the package of the screen
  // read now (a dump, not kept: the refs stay those of the last snapshot) with activity ""
  // (unknown). not_found when none names an app.
  ForegroundActivity foreground(Deadline deadline = kDefaultDeadline);
  ForegroundActivity foreground(Deadline deadline, std::error_code& error);
  std::vector<std::string> packages(Deadline deadline = kDefaultDeadline);
  std::vector<std::string> packages(Deadline deadline, std::error_code& error);
  std::vector<std::string> packages(PackageKind kind, Deadline deadline = kDefaultDeadline);
  std::vector<std::string> packages(PackageKind kind, Deadline deadline, std::error_code& error);
  // The installed apps' labels ("Settings"), by package, as PackageManager gives them through
  // the on-device dumper (a shell has no command for labels). Errors: not_supported without
  // the dumper, command_failed (PackageManager could not be reached), the helper's errors.
  // Labels are device text: escape them before they reach a terminal.
  std::map<std::string, std::string> app_labels(Deadline deadline = kDefaultDeadline);
  std::map<std::string, std::string> app_labels(Deadline deadline, std::error_code& error);
  // Streams the APK file (bounded memory). Errors also: not_found (no such file),
  // command_failed ("Failure [INSTALL_…]" quoted).
  void install(const std::filesystem::path& apk, Deadline deadline = kDefaultDeadline);
  void install(const std::filesystem::path& apk, Deadline deadline, std::error_code& error);
  void uninstall(std::string_view package, Deadline deadline = kDefaultDeadline);
  void uninstall(std::string_view package, Deadline deadline, std::error_code& error);

  // ---- Device (screencap.hpp, screen_control.hpp, device_state.hpp, settings.hpp; rotate and
  // the settings calls need Capability::settings, open_notifications
  // Capability::notifications, else not_supported)
  // PNG bytes of the screen: raw screencap encoded here (adbwire::screenshot with default
  // options; no file on either side). For JPEG, scaling or a byte cap call
  // adbwire::screenshot(device(), options). parse_error when the device prints no image.
  std::vector<std::uint8_t> screenshot(Deadline deadline = kDefaultDeadline);
  std::vector<std::uint8_t> screenshot(Deadline deadline, std::error_code& error);
  // A screenshot as options say (screencap.hpp), remembered as the last one for points given
  // in_screenshot. With marks, every ref of the last snapshot (taken first when there is none)
  // is drawn on it as a numbered box (marks.hpp), before scaling; the raw screencap is used
  // then whatever options.encode_on_host says. Errors: as adbwire::screenshot, and the
  // snapshot's and draw_marks' with marks.
  PageScreenshot screenshot(const ScreenshotOptions& options, bool marks,
                            Deadline deadline = kDefaultDeadline);
  PageScreenshot screenshot(const ScreenshotOptions& options, bool marks, Deadline deadline,
                            std::error_code& error);
  // The clipboard's text, through the on-device dumper (EXPERIMENTAL like it). Errors:
  // not_supported unless Capability::clipboard (the message says how to turn it on),
  // command_failed when the clipboard service refuses (Android 10+ lets only the focused app
  // or the input method read the clipboard), and the helper's errors (see snapshot()).
  void clipboard_set(std::string_view text, Deadline deadline = kDefaultDeadline);
  void clipboard_set(std::string_view text, Deadline deadline, std::error_code& error);
  std::string clipboard_get(Deadline deadline = kDefaultDeadline);
  std::string clipboard_get(Deadline deadline, std::error_code& error);
  // Locks the rotation (accelerometer off) at `orientation`.
  void rotate(Orientation orientation, Deadline deadline = kDefaultDeadline);
  void rotate(Orientation orientation, Deadline deadline, std::error_code& error);
  // Wakes the screen and dismisses a keyguard that has no PIN/pattern (a secure lock
  // stays: the person has to unlock it).
  void wake(Deadline deadline = kDefaultDeadline);
  void wake(Deadline deadline, std::error_code& error);
  void open_notifications(Deadline deadline = kDefaultDeadline);
  void open_notifications(Deadline deadline, std::error_code& error);
  // The device clock.
  std::chrono::system_clock::time_point device_time(Deadline deadline = kDefaultDeadline);
  std::chrono::system_clock::time_point device_time(Deadline deadline, std::error_code& error);
  // A value of Android's settings provider; "" for an unset key. Keys and values are
  // shell-quoted, so any text is safe.
  std::string setting(SettingsNamespace ns, std::string_view key,
                      Deadline deadline = kDefaultDeadline);
  std::string setting(SettingsNamespace ns, std::string_view key, Deadline deadline,
                      std::error_code& error);
  void put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                   Deadline deadline = kDefaultDeadline);
  void put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                   Deadline deadline, std::error_code& error);

  // ---- Waiting (the snapshot they return becomes the one refs refer to)
  // Snapshots until one has an element matching text (ui::Snapshot::find). timeout names
  // the text when it never appears.
  const ui::Snapshot& wait_for_text(std::string_view text, std::chrono::milliseconds timeout);
  const ui::Snapshot& wait_for_text(std::string_view text, std::chrono::milliseconds timeout,
                                    std::error_code& error);
  // Snapshots until two in a row are identical (the screen settled). timeout when the
  // screen kept changing.
  const ui::Snapshot& wait_for_idle(std::chrono::milliseconds timeout);
  const ui::Snapshot& wait_for_idle(std::chrono::milliseconds timeout, std::error_code& error);

  // What this device supports, probed once with one shell command and then cached.
  const Capabilities& capabilities(Deadline deadline = kDefaultDeadline);
  const Capabilities& capabilities(Deadline deadline, std::error_code& error);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace adbwire
