// Page (the agent API) against the virtual device over loopback TCP: the exact commands
// actions send, typed text arriving intact, stale refs refused, uiautomator's failure texts
// turned into typed errors, and multi-step flows through the demo screen graph.
#include "adbwire/page.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "adbwire/trajectory.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const fs::path kDemoScreens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";

VirtualDeviceOptions demo_options() {
  VirtualDeviceOptions options;
  options.screens = kDemoScreens;
  return options;
}

PageOptions quick_retries() {
  PageOptions options;
  options.dump_retry_pause = 10ms;
  return options;
}

// The ref of the element with this resource-id (full or after ":id/").
std::uint32_t ref_by_id(const ui::Snapshot& snapshot, std::string_view id) {
  for (ui::NodeIndex n : snapshot.find(ui::FindField::resource_id, id, ui::MatchMode::exact)) {
    if (snapshot.node(n).ref != 0) return snapshot.node(n).ref;
  }
  ADD_FAILURE() << "no ref with resource-id " << id << " in\n" << snapshot.to_text();
  return 0;
}

// The ref of the nearest element with a ref that contains the node showing text.
std::uint32_t ref_holding_text(const ui::Snapshot& snapshot, std::string_view text) {
  for (ui::NodeIndex n : snapshot.find(ui::FindField::text, text, ui::MatchMode::exact)) {
    for (ui::NodeIndex at = n; at != ui::kNoNode; at = snapshot.node(at).parent) {
      if (snapshot.node(at).ref != 0) return snapshot.node(at).ref;
    }
  }
  ADD_FAILURE() << "no ref holds text " << text << " in\n" << snapshot.to_text();
  return 0;
}

std::string field_text(const ui::Snapshot& snapshot, std::string_view id) {
  for (ui::NodeIndex n : snapshot.find(ui::FindField::resource_id, id, ui::MatchMode::exact)) {
    return std::string(snapshot.node(n).text);
  }
  ADD_FAILURE() << "no field " << id;
  return {};
}

bool has_text(const ui::Snapshot& snapshot, std::string_view text) {
  return !snapshot.find(ui::FindField::text, text, ui::MatchMode::exact).empty();
}

std::string last_event(const VirtualDevice& vd) {
  const auto events = vd.events();
  return events.empty() ? std::string() : events.back();
}

using test::TempDir;

// ---- actions send what docs/design.md says (Interactions)

TEST(Page, TapSendsInputTapAtTheRefsCentre) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& snapshot = page.snapshot();
  // The sample screen's "Add" button is [42,496][354,622].
  const std::uint32_t add = ref_by_id(snapshot, "com.example.adbwire.demo:id/add");
  page.tap(add);
  EXPECT_EQ(last_event(vd), "input tap 198 559");
}

TEST(Page, LongPressScrollAndKeysSendTheirInputCommands) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& snapshot = page.snapshot();
  const std::uint32_t add = ref_by_id(snapshot, "add");
  const std::uint32_t list = ref_by_id(snapshot, "items");  // [0,832][1080,2337]

  page.long_press(add);
  EXPECT_EQ(last_event(vd), "input swipe 198 559 198 559 1000");
  page.scroll(list, Direction::down);  // centre (540,1584), a third of 1505 px up
  EXPECT_EQ(last_event(vd), "input swipe 540 1584 540 1083 300");
  page.scroll(list, Direction::left);
  EXPECT_EQ(last_event(vd), "input swipe 540 1584 900 1584 300");
  page.back();
  EXPECT_EQ(last_event(vd), "input keyevent 4");
  page.press("KEYCODE_ENTER");
  EXPECT_EQ(last_event(vd), "input keyevent KEYCODE_ENTER");
  page.press("187");
  EXPECT_EQ(last_event(vd), "input keyevent 187");

  const std::size_t before = vd.events().size();
  std::error_code error;
  page.press("warp-drive", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_NE(page.last_error().find("unknown key"), std::string::npos) << page.last_error();
  EXPECT_EQ(vd.events().size(), before);
}

// The swipe of one scroll: "input swipe X1 Y1 X2 Y2 MS" read back into its two points.
struct Swipe {
  ui::Point from;
  ui::Point to;
};

Swipe parse_swipe(const std::string& event) {
  Swipe s;
  int ms = 0;
  EXPECT_EQ(std::sscanf(event.c_str(), "input swipe %d %d %d %d %d", &s.from.x, &s.from.y, &s.to.x,
                        &s.to.y, &ms),
            5)
      << event;
  return s;
}

// Each direction drags the finger the opposite way (content moves with the finger), and both
// ends stay inside the element: a swipe leaving it would start or end on another view.
TEST(Page, ScrollInEachDirectionSwipesAgainstItInsideTheElement) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& snapshot = page.snapshot();
  const std::uint32_t list = ref_by_id(snapshot, "items");
  const ui::Bounds bounds = snapshot.ref(list)->bounds;
  ASSERT_EQ(bounds, (ui::Bounds{0, 832, 1080, 2337}));

  struct Case {
    Direction direction;
    std::string expected;  // centre (540,1584); a third of 1505 px is 501, of 1080 px 360
    int dx_sign;           // where the finger goes
    int dy_sign;
  };
  const Case cases[] = {
      {Direction::up, "input swipe 540 1584 540 2085 300", 0, +1},
      {Direction::down, "input swipe 540 1584 540 1083 300", 0, -1},
      {Direction::left, "input swipe 540 1584 900 1584 300", +1, 0},
      {Direction::right, "input swipe 540 1584 180 1584 300", -1, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    page.scroll(list, c.direction);
    const std::string event = last_event(vd);
    EXPECT_EQ(event, c.expected);
    const Swipe swipe = parse_swipe(event);
    EXPECT_TRUE(bounds.contains(swipe.from)) << event;
    EXPECT_TRUE(bounds.contains(swipe.to)) << event;
    const auto sign = [](int v) { return (v > 0) - (v < 0); };
    EXPECT_EQ(sign(swipe.to.x - swipe.from.x), c.dx_sign) << event;
    EXPECT_EQ(sign(swipe.to.y - swipe.from.y), c.dy_sign) << event;
  }
}

// home() and recent() are named keys, not raw numbers the caller has to know: they must reach
// the device as KEYCODE_HOME (3) and KEYCODE_APP_SWITCH (187).
TEST(Page, HomeAndRecentSendTheirKeycodes) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  page.home();
  EXPECT_EQ(last_event(vd), "input keyevent 3");
  page.recent();
  EXPECT_EQ(last_event(vd), "input keyevent 187");
  EXPECT_EQ(vd.events().size(), 2U);
}

TEST(Page, CoordinateActionsScaleNormalizedPointsAndRefuseOffScreenOnes) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  page.tap_at({.x = 0.5, .y = 0.5, .normalized = true});  // 1080x2400 from `wm size`
  EXPECT_EQ(last_event(vd), "input tap 540 1200");
  page.long_press_at({.x = 10, .y = 20});
  EXPECT_EQ(last_event(vd), "input swipe 10 20 10 20 1000");
  page.swipe({.x = 100, .y = 2000}, {.x = 100, .y = 500}, 450ms);
  EXPECT_EQ(last_event(vd), "input swipe 100 2000 100 500 450");

  const std::size_t before = vd.events().size();
  EXPECT_THROW(page.tap_at({.x = 2000, .y = 10}), Error);
  std::error_code error;
  page.tap_at({.x = 1.5, .y = 0.5, .normalized = true}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_EQ(vd.events().size(), before);
}

TEST(Page, UnknownRefIsNotFoundAndSendsNothing) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  std::error_code error;
  page.tap(1, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
  EXPECT_NE(page.last_error().find("snapshot first"), std::string::npos) << page.last_error();
  page.snapshot();
  page.tap(999, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
  EXPECT_NE(page.last_error().find("refs 1-"), std::string::npos) << page.last_error();
  EXPECT_TRUE(vd.events().empty());
}

// ---- typing

TEST(Page, TypedTextWithSpacesAndShellMetacharactersArrivesExactly) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::uint32_t name = ref_by_id(page.snapshot(), "name");

  const std::string text = "it's a \"test\"  $HOME; rm -rf / && `id` | x > y 100%s %% \\n end";
  page.type(name, text);
  EXPECT_EQ(field_text(page.snapshot(), "name"), text);
  // One focus tap, then the words and spaces.
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(), "input text it's"), events.end());
  EXPECT_NE(std::find(events.begin(), events.end(), "input keyevent 62"), events.end());
}

TEST(Page, TypeCanClearTheFieldAndSubmit) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::uint32_t name = ref_by_id(page.snapshot(), "name");
  page.type(name, "apples");
  page.type(name, "pears", {.clear = true, .submit = true});
  EXPECT_EQ(last_event(vd), "input keyevent 66");
  EXPECT_EQ(field_text(page.snapshot(), "name"), "pears");
}

TEST(Page, NonAsciiTextIsRefusedWithTheOptionsNotDropped) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::uint32_t name = ref_by_id(page.snapshot(), "name");
  const std::size_t before = vd.events().size();
  try {
    page.type(name, "café");
    FAIL() << "non-ASCII text was accepted without an input method that can type it";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_supported);
    EXPECT_NE(std::string(e.what()).find("ADBKeyBoard"), std::string::npos) << e.what();
  }
  EXPECT_EQ(vd.events().size(), before);
  EXPECT_FALSE(page.capabilities().has(Capability::unicode_text));

  std::error_code error;
  page.type(name, "bell\a", {}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

// With the on-device dumper on, non-ASCII text is set on the clipboard by the dumper and
// pasted (KEYCODE_PASTE), so it arrives whole; the clipboard is readable and settable.
TEST(Page, NonAsciiTextIsPastedThroughTheClipboardWithTheHelper) {
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions options;
  options.helper = PageOptions::Helper::on;
  Page page = Page::connect(vd.target(), options);
  EXPECT_TRUE(page.capabilities().has(Capability::clipboard));
  EXPECT_TRUE(page.capabilities().has(Capability::unicode_text));
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::uint32_t name = ref_by_id(page.snapshot(), "name");
  const std::string text = "Grüße, 你好 — ✓ \"quoted\" 100%s";
  page.type(name, text);
  EXPECT_EQ(field_text(page.snapshot(), "name"), text);
  EXPECT_EQ(vd.events().back().substr(vd.events().back().rfind("input keyevent")),
            "input keyevent 279");
  // Clearing first works without ADBKeyBoard too (MOVE_END, then DEL per character).
  page.type(ref_by_id(page.snapshot(), "name"), "ñ", {.clear = true});
  EXPECT_EQ(field_text(page.snapshot(), "name"), "ñ");

  page.clipboard_set("copié ✓");
  EXPECT_EQ(page.clipboard_get(), "copié ✓");
  std::error_code error;
  page.clipboard_set(std::string(300 * 1024, 'x'), kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

TEST(Page, NonAsciiTextGoesThroughAdbKeyboardWhenItIsTheInputMethod) {
  VirtualDevice vd(demo_options());
  vd.start();
  {
    Page setup = Page::connect(vd.target());
    setup.put_setting(SettingsNamespace::secure, "default_input_method",
                      "com.android.adbkeyboard/.AdbIME");
  }
  Page page = Page::connect(vd.target());
  EXPECT_TRUE(page.capabilities().has(Capability::unicode_text));
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  page.type(ref_by_id(page.snapshot(), "name"), "café");
  EXPECT_EQ(last_event(vd), "am broadcast -a ADB_INPUT_B64 --es msg Y2Fmw6k=");
}

// ---- stale refs

TEST(Page, StaleRefAfterAScreenChangeIsRefused) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& list = page.snapshot();
  const std::uint32_t add = ref_by_id(list, "add_item");
  const std::uint32_t apples = ref_holding_text(list, "Apples");
  page.tap(add);  // the app now shows the "New item" form
  const std::size_t before = vd.events().size();
  try {
    page.tap(apples);
    FAIL() << "a ref of the previous screen was tapped";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::stale_ref);
    EXPECT_NE(std::string(e.what()).find("Apples"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("new snapshot"), std::string::npos) << e.what();
  }
  EXPECT_EQ(vd.events().size(), before);
}

TEST(Page, RefOfAnUnchangedScreenStillActsAfterAnAction) {
  VirtualDevice vd;  // the sample screen: taps do not navigate
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& snapshot = page.snapshot();
  const std::uint32_t add = ref_by_id(snapshot, "add");
  const std::uint32_t clear = ref_by_id(snapshot, "clear");  // [384,496][696,622]
  page.tap(add);
  page.tap(clear);  // re-checked against a fresh dump, found by its exact token
  EXPECT_EQ(last_event(vd), "input tap 540 559");
}

TEST(Page, RefCheckNeverTrustsTheOldSnapshot) {
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions options;
  options.ref_check = RefCheck::never;
  Page page = Page::connect(vd.target(), options);
  const ui::Snapshot& list = page.snapshot();
  const std::uint32_t add = ref_by_id(list, "add_item");  // [42,2160][1038,2295]
  const std::uint32_t apples = ref_holding_text(list, "Apples");
  page.tap(add);
  page.tap(apples);  // what the caller asked for: no re-check, so it is sent
  EXPECT_EQ(last_event(vd), "input tap 540 391");
}

// ---- the screen graph: a multi-screen flow

TEST(Page, ThreeScreenFlowThroughTheDemoApp) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());

  const ui::Snapshot& list = page.snapshot();
  ASSERT_TRUE(has_text(list, "Groceries")) << list.to_text();
  EXPECT_EQ(page.foreground().activity, ".ListActivity");
  page.tap(ref_holding_text(list, "Apples"));

  const ui::Snapshot& details = page.snapshot();
  ASSERT_TRUE(has_text(details, "Bought")) << details.to_text();
  EXPECT_EQ(page.foreground().activity, ".DetailsActivity");
  page.back();

  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const ui::Snapshot& form = page.snapshot();
  ASSERT_TRUE(has_text(form, "New item")) << form.to_text();
  page.type(ref_by_id(form, "name"), "Green tea");
  page.type(ref_by_id(page.snapshot(), "quantity"), "2 boxes");
  const ui::Snapshot& filled = page.snapshot();
  EXPECT_EQ(field_text(filled, "name"), "Green tea");
  EXPECT_EQ(field_text(filled, "quantity"), "2 boxes");
  page.tap(ref_by_id(filled, "save"));

  const ForegroundActivity now = page.foreground();
  EXPECT_EQ(now.package, "com.example.adbwire.demo");
  EXPECT_EQ(now.activity, ".ListActivity");
  EXPECT_TRUE(has_text(page.snapshot(), "Groceries"));
  EXPECT_EQ(vd.connections_accepted(), 1U);
}

TEST(Page, WaitForTextReturnsTheScreenThatShowsIt) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target());
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const ui::Snapshot& form = page.wait_for_text("Save", 5s);
  EXPECT_TRUE(has_text(form, "Save"));
  EXPECT_NE(ref_by_id(form, "save"), 0U);  // its refs are the ones actions take now
  page.tap(ref_by_id(form, "save"));
  EXPECT_TRUE(has_text(page.wait_for_idle(5s), "Groceries"));

  std::error_code error;
  page.wait_for_text("Checkout", 300ms, error);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_NE(page.last_error().find("Checkout"), std::string::npos) << page.last_error();
}

// ---- uiautomator failures become typed errors

struct DumpFaultCase {
  UiDumpFault fault;
  std::uint32_t times;
  errc expected;
  std::string_view message;
};

class PageDumpFault : public ::testing::TestWithParam<DumpFaultCase> {};

TEST_P(PageDumpFault, BecomesATypedErrorAgainstTheRealDevice) {
  const DumpFaultCase& c = GetParam();
  VirtualDevice vd;
  vd.start();
  PageOptions options = quick_retries();
  options.dump_method = PageOptions::DumpMethod::file;
  Page page = Page::connect(vd.target(), options);
  vd.set_ui_dump_fault(c.fault, c.times);
  std::error_code error;
  const ui::Snapshot& snapshot = page.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, c.expected);
  EXPECT_TRUE(snapshot.nodes().empty());
  EXPECT_NE(page.last_error().find(c.message), std::string::npos) << page.last_error();
  // The device is healthy again: the next snapshot works.
  EXPECT_FALSE(page.snapshot().refs().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, PageDumpFault,
    ::testing::Values(
        DumpFaultCase{UiDumpFault::idle_state, 3, errc::timeout, "never settled"},
        DumpFaultCase{UiDumpFault::null_root, 3, errc::command_failed, "null root node 3 times"},
        DumpFaultCase{UiDumpFault::already_registered, 1, errc::busy, "single UiAutomation"},
        DumpFaultCase{UiDumpFault::killed, 1, errc::command_failed, "killed"},
        DumpFaultCase{UiDumpFault::empty_file, 1, errc::command_failed, "empty or missing"}));

TEST(Page, BusyScreenAndNullRootAreRetriedWithinTheAttempts) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target(), quick_retries());
  vd.set_ui_dump_fault(UiDumpFault::idle_state, 2);
  EXPECT_FALSE(page.snapshot().refs().empty());
  vd.set_ui_dump_fault(UiDumpFault::null_root, 2);
  EXPECT_FALSE(page.snapshot().refs().empty());
}

TEST(Page, FileAndTtyDumpMethodsGiveTheSameSnapshot) {
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions file;
  file.dump_method = PageOptions::DumpMethod::file;
  PageOptions tty;
  tty.dump_method = PageOptions::DumpMethod::tty;
  Page by_file = Page::connect(vd.target(), file);
  Page by_tty = Page::connect(vd.target(), tty);
  const std::string a = by_file.snapshot().to_text();
  EXPECT_EQ(a, by_tty.snapshot().to_text());
  EXPECT_NE(a.find("Add item"), std::string::npos) << a;
  // The file method leaves no dump behind.
  EXPECT_TRUE(fs::is_empty(vd.root() / "data/local/tmp"));
}

// API 35+ prints the success line for `uiautomator dump /dev/tty` but no XML; the empty_file
// fault on the /dev/tty path gives exactly that output.
TEST(Page, AutomaticDumpMovesToTheFileMethodWhenTtyGivesNoXml) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target(), quick_retries());
  vd.set_ui_dump_fault(UiDumpFault::empty_file, 1);
  EXPECT_TRUE(has_text(page.snapshot(), "Add item"));
  // It stays on the file method: an empty file now is the device's answer, not a reason to
  // try /dev/tty again.
  vd.set_ui_dump_fault(UiDumpFault::empty_file, 1);
  std::error_code error;
  page.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(page.last_error().find("empty or missing"), std::string::npos) << page.last_error();
  EXPECT_TRUE(has_text(page.snapshot(), "Add item"));
  EXPECT_TRUE(fs::is_empty(vd.root() / "data/local/tmp"));
}

TEST(Page, AutomaticDumpKeepsUsingTtyOnceItWorked) {
  VirtualDevice vd(demo_options());
  vd.start();
  Page page = Page::connect(vd.target(), quick_retries());
  EXPECT_TRUE(has_text(page.snapshot(), "Add item"));
  vd.set_ui_dump_fault(UiDumpFault::empty_file, 1);
  std::error_code error;
  page.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(page.last_error().find("empty or missing"), std::string::npos) << page.last_error();
}

// ---- device calls

TEST(Page, AppsSettingsAndDeviceQueries) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  page.launch("com.android.settings");
  EXPECT_EQ(last_event(vd), "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1");
  page.launch("com.example.adbwire.demo", ".Main");
  EXPECT_EQ(last_event(vd), "am start -n com.example.adbwire.demo/.Main");
  page.stop("com.example.adbwire.demo");
  EXPECT_EQ(last_event(vd), "am force-stop com.example.adbwire.demo");
  EXPECT_THROW(page.launch("x; reboot"), Error);

  EXPECT_EQ(page.packages(), std::vector<std::string>{"com.example.adbwire.demo"});

  page.put_setting(SettingsNamespace::system, "font scale's", "1.5 x");
  EXPECT_EQ(page.setting(SettingsNamespace::system, "font scale's"), "1.5 x");
  EXPECT_EQ(page.setting(SettingsNamespace::global, "never_set"), "");
  page.rotate(Orientation::landscape);
  EXPECT_EQ(last_event(vd), "settings put system user_rotation 1");

  const auto now = std::chrono::system_clock::now();
  const auto device_now = page.device_time();
  EXPECT_LT(device_now - now, std::chrono::hours(24));
  EXPECT_LT(now - device_now, std::chrono::hours(24));

  const std::vector<std::uint8_t> png = page.screenshot();
  ASSERT_GT(png.size(), 8U);
  EXPECT_EQ(std::string(png.begin(), png.begin() + 8), "\x89PNG\r\n\x1a\n");

  page.wake();
  EXPECT_EQ(last_event(vd), "wm dismiss-keyguard");
  page.open_notifications();
  EXPECT_EQ(last_event(vd), "cmd statusbar expand-notifications");
}

TEST(Page, CapabilitiesComeFromOneProbeAndUnsupportedIsNotSupported) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const Capabilities& caps = page.capabilities();
  EXPECT_EQ(caps.sdk, 34U);
  EXPECT_EQ(caps.screen_size, (ui::Point{1080, 2400}));
  EXPECT_TRUE(caps.has(Capability::snapshot));
  EXPECT_TRUE(caps.has(Capability::drag_and_drop));
  EXPECT_FALSE(caps.has(Capability::clipboard));
  const auto names = caps.names();
  EXPECT_NE(std::find(names.begin(), names.end(), "screenshot"), names.end());

  std::error_code error;
  page.clipboard_set("hello", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_NE(page.last_error().find("--helper auto"), std::string::npos) << page.last_error();
}

// The APK stand-in the virtual device understands: it reads the "package=" and "versionCode="
// markers instead of a binary manifest (src/vdevice/install_commands.hpp).
fs::path write_apk(const fs::path& dir, const std::string& package) {
  const fs::path path = dir / (package + ".apk");
  std::string bytes = "PK\x03\x04 package=" + package + " versionCode=1\n";
  bytes.resize(64 * 1024, 'x');
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Page::install/uninstall go through the package manager: the package appears in and then
// leaves `pm list packages`, and the device saw a streamed install and a plain uninstall.
TEST(Page, InstallAndUninstallChangeTheDevicesPackages) {
  TempDir dir;
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const fs::path apk = write_apk(dir.path(), "com.example.page");
  page.install(apk);
  const auto installed = page.packages();
  EXPECT_NE(std::find(installed.begin(), installed.end(), "com.example.page"), installed.end());
  const auto events = vd.events();
  EXPECT_NE(std::find(events.begin(), events.end(),
                      "cmd package install -S " + std::to_string(fs::file_size(apk)) + " -r"),
            events.end());

  page.uninstall("com.example.page");
  EXPECT_EQ(last_event(vd), "pm uninstall com.example.page");
  const auto left = page.packages();
  EXPECT_EQ(std::find(left.begin(), left.end(), "com.example.page"), left.end());

  // Failures reach the caller typed, with the package manager's words.
  std::error_code error;
  page.uninstall("com.example.page", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(page.last_error().find("DELETE_FAILED"), std::string::npos) << page.last_error();
  page.install(dir.path() / "missing.apk", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
}

// Capabilities follow the API level: before Android 8 (API 26) there is no
// `cmd statusbar expand-notifications`, so open_notifications() is refused up front instead of
// running a command that does nothing, and wake() uses MENU instead of `wm dismiss-keyguard`.
TEST(Page, NotificationsAreNotSupportedBeforeApi26) {
  VirtualDeviceOptions options;
  options.api_level = 25;
  VirtualDevice vd(options);
  vd.start();
  Page page = Page::connect(vd.target());
  const Capabilities& caps = page.capabilities();
  EXPECT_EQ(caps.sdk, 25U);
  EXPECT_FALSE(caps.has(Capability::notifications));
  EXPECT_FALSE(caps.has(Capability::dismiss_keyguard));
  EXPECT_TRUE(caps.has(Capability::install));

  const std::size_t before = vd.events().size();
  std::error_code error;
  page.open_notifications(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_NE(page.last_error().find("API 25"), std::string::npos) << page.last_error();
  EXPECT_EQ(vd.events().size(), before);

  page.wake();
  EXPECT_EQ(last_event(vd), "input keyevent 82");
}

TEST(Page, DragUsesDragAndDropBetweenTheTwoRefs) {
  VirtualDevice vd;
  vd.start();
  Page page = Page::connect(vd.target());
  const ui::Snapshot& snapshot = page.snapshot();
  page.drag(ref_by_id(snapshot, "add"),
            ref_by_id(snapshot, "share"));  // share: [726,496][1038,622]
  EXPECT_EQ(last_event(vd), "input draganddrop 198 559 882 559 1500");
}

// ---- trajectory

TEST(Page, TrajectoryRecordsEachCallWithItsSnapshot) {
  TempDir dir;
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions options;
  options.trajectory =
      std::make_shared<Trajectory>(TrajectoryOptions{.dir = dir.path(), .screenshots = true});
  Page page = Page::connect(vd.target(), options);
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  std::error_code error;
  page.tap(77, kDefaultDeadline, error);

  std::ifstream log(dir.path() / "trajectory.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(log, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_NE(lines[0].find("\"action\":\"snapshot\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"snapshot\":\"0001-snapshot.txt\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"action\":\"tap\",\"args\":{\"ref\":"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("\"ok\":true"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("\"screenshot\":\"0002-after.png\""), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("\"ok\":false"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("\"error\":\"not found\""), std::string::npos) << lines[2];
  EXPECT_TRUE(fs::exists(dir.path() / "0001-snapshot.xml"));
  std::ifstream snapshot_text(dir.path() / "0001-snapshot.txt");
  std::stringstream text;
  text << snapshot_text.rdbuf();
  EXPECT_NE(text.str().find("Add item"), std::string::npos);
  EXPECT_GT(fs::file_size(dir.path() / "0002-after.png"), 8U);
}

// Every file of a trajectory folder, joined.
std::string trajectory_bytes(const fs::path& dir) {
  std::string all;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    all += std::string((std::istreambuf_iterator<char>(in)), {});
  }
  return all;
}

// A secret typed through Page (TypeOptions::secret_name) reaches the device; the trajectory
// holds "<secret NAME>" for the call and for the field showing it in later snapshots, the
// result returns nothing of what the field reads.
TEST(Page, ASecretIsTypedButTheTrajectoryAndTheResultHoldItsNameOnly) {
  TempDir dir;
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions options;
  options.trajectory = std::make_shared<Trajectory>(TrajectoryOptions{.dir = dir.path()});
  Page page = Page::connect(vd.target(), options);
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::string value = "Tr4jectory-s3cret";
  const TypeResult typed =
      page.type(ref_by_id(page.snapshot(), "name"), value, {.secret_name = "pin"});
  EXPECT_EQ(typed.check, TypeResult::Check::as_typed);
  EXPECT_TRUE(typed.reads.empty());
  EXPECT_TRUE(typed.before.empty());
  EXPECT_EQ(field_text(page.snapshot(), "name"), value) << "the device got it";
  const std::string recorded = trajectory_bytes(dir.path());
  EXPECT_EQ(recorded.find(value), std::string::npos);
  EXPECT_NE(recorded.find("<secret pin>"), std::string::npos);
}

// ---- stealth

TEST(Page, StealthTapsLandInsideTheElementAwayFromItsCentreAndRepeatForASeed) {
  VirtualDevice vd(demo_options());
  vd.start();
  const auto taps = [&](std::uint64_t seed) {
    PageOptions options;
    options.stealth = {.on = true, .seed = seed};
    Page page = Page::connect(vd.target(), options);
    std::vector<std::string> sent;
    for (int i = 0; i < 3; ++i) {
      page.tap(ref_by_id(page.snapshot(), "add_item"));
      sent.push_back(last_event(vd));
      page.back();
    }
    return sent;
  };
  const std::vector<std::string> first = taps(11);
  EXPECT_EQ(taps(11), first);
  EXPECT_NE(taps(12), first);
  // add_item: [42,2164][1038,2290]; its centre is 540,2227.
  for (const std::string& event : first) {
    int x = 0;
    int y = 0;
    ASSERT_EQ(std::sscanf(event.c_str(), "input tap %d %d", &x, &y), 2) << event;
    EXPECT_GE(x, 42);
    EXPECT_LT(x, 1038);
    EXPECT_GE(y, 2164);
    EXPECT_LT(y, 2290);
  }
  EXPECT_NE(first[0], "input tap 540 2227");
}

TEST(Page, StealthTypesOneCharacterACommandAndSwipesAlongACurve) {
  VirtualDevice vd(demo_options());
  vd.start();
  PageOptions options;
  options.stealth = {.on = true, .seed = 5};
  Page page = Page::connect(vd.target(), options);
  page.tap(ref_by_id(page.snapshot(), "add_item"));
  const std::size_t before = vd.events().size();
  page.type(ref_by_id(page.snapshot(), "name"), "ab c");
  const std::vector<std::string> events = vd.events();
  const std::vector<std::string> typed(events.begin() + static_cast<std::ptrdiff_t>(before) + 1,
                                       events.end());
  EXPECT_EQ(typed, (std::vector<std::string>{"input text a", "input text b", "input keyevent 62",
                                             "input text c"}));
  EXPECT_EQ(field_text(page.snapshot(), "name"), "ab c");
  const std::size_t swiped = vd.events().size();
  page.swipe({100, 1500}, {100, 700});
  const std::vector<std::string> after = vd.events();
  ASSERT_EQ(after.size() - swiped, 4u) << "four input swipe segments along the curve";
  EXPECT_TRUE(after[swiped].starts_with("input swipe 100 1500 ")) << after[swiped];
  EXPECT_TRUE(after.back().find(" 100 700 ") != std::string::npos) << after.back();
}

}  // namespace
}  // namespace adbwire
