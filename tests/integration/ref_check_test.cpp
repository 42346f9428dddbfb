// A screen that changes by itself between snapshot and action (an async load, a dialog, a list
// that re-lays out): each action on a ref re-reads the screen by default and either acts where
// the element is now or refuses with stale_ref, sending nothing — never a guess. And typing that
// waits for the field's focus and reads the field back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"
#include "mcp/device_tools.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

std::string node(const std::string& cls, const std::string& text, const std::string& bounds,
                 const std::string& extra = "clickable=\"true\"") {
  return "<node index=\"0\" text=\"" + text + "\" resource-id=\"\" class=\"" + cls +
         "\" package=\"com.example.shop\" content-desc=\"\" checkable=\"false\" "
         "checked=\"false\" focusable=\"true\" focused=\"false\" scrollable=\"false\" "
         "long-clickable=\"false\" password=\"false\" selected=\"false\" enabled=\"true\" " +
         extra + " bounds=\"" + bounds + "\"/>";
}

// A dialog of the given buttons (class, text, bounds) under one frame.
std::string screen(const std::vector<std::string>& children) {
  std::string xml =
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
      "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
      "package=\"com.example.shop\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
      "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
      "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
      "bounds=\"[0,0][1080,2400]\">";
  for (const std::string& child : children) xml += child;
  return xml + "</node></hierarchy>";
}

const std::string kOk = node("android.widget.Button", "OK", "[100,1000][500,1200]");
const std::string kCancel = node("android.widget.Button", "Cancel", "[600,1000][1000,1200]");
const std::string kSend = node("android.widget.Button", "Send", "[100,1400][1000,1600]");

std::uint32_t ref_of(const ui::Snapshot& snapshot, std::string_view text) {
  for (const ui::RefInfo& info : snapshot.refs()) {
    if (snapshot.node(info.node).text == text) return info.ref;
  }
  ADD_FAILURE() << "no ref for " << text << " in\n" << snapshot.to_text();
  return 0;
}

std::vector<std::string> taps(const VirtualDevice& vd) {
  std::vector<std::string> out;
  for (const std::string& e : vd.events()) {
    if (e.starts_with("input tap ")) out.push_back(e);
  }
  return out;
}

class ScreenChangedByItself : public ::testing::Test {
 protected:
  void SetUp() override {
    vd_.start();
    vd_.show_dump(screen({kOk, kCancel, kSend}));
  }
  // A snapshot of the first screen, then the screen changes by itself to `changed`.
  std::uint32_t snapshot_then_change(Page& page, const std::string& text,
                                     const std::string& changed) {
    const std::uint32_t ref = ref_of(page.snapshot(), text);
    vd_.show_dump(changed);
    return ref;
  }
  void expect_stale(Page& page, std::uint32_t ref, std::string_view why) {
    const std::size_t before = vd_.events().size();
    try {
      page.tap(ref);
      ADD_FAILURE() << "tapped a ref whose element is not uniquely on the screen";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::stale_ref) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nothing was sent"), std::string::npos) << e.what();
    }
    EXPECT_EQ(vd_.events().size(), before) << "something was sent";
  }

  VirtualDevice vd_;
};

TEST_F(ScreenChangedByItself, AMovedElementIsTappedWhereItIsNowAndTheMoveIsReported) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t ok = snapshot_then_change(
      page, "OK", screen({kCancel, node("android.widget.Button", "OK", "[100,1800][500,2000]")}));
  page.tap(ok);
  EXPECT_EQ(taps(vd_).back(), "input tap 300 1900");
  ASSERT_EQ(page.last_ref_checks().size(), 1u);
  const RefCheckReport& report = page.last_ref_checks()[0];
  EXPECT_TRUE(report.checked);
  EXPECT_TRUE(report.moved);
  EXPECT_EQ(report.issued, (ui::Bounds{100, 1000, 500, 1200}));
  EXPECT_EQ(report.acted, (ui::Bounds{100, 1800, 500, 2000}));
}

TEST_F(ScreenChangedByItself, SwappedButtonsTapTheOneAskedFor) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t ok = snapshot_then_change(
      page, "OK",
      screen({node("android.widget.Button", "Cancel", "[100,1000][500,1200]"),
              node("android.widget.Button", "OK", "[600,1000][1000,1200]"), kSend}));
  page.tap(ok);
  EXPECT_EQ(taps(vd_).back(), "input tap 800 1100") << "tapped Cancel where OK was";
  EXPECT_TRUE(page.last_ref_checks()[0].moved);
}

TEST_F(ScreenChangedByItself, ARemovedElementIsAStaleRefAndNothingIsSent) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t send = snapshot_then_change(page, "Send", screen({kOk, kCancel}));
  expect_stale(page, send, "is gone from the screen");
}

TEST_F(ScreenChangedByItself, ADuplicatedElementIsAStaleRefAndNothingIsSent) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t ok = snapshot_then_change(
      page, "OK",
      screen({node("android.widget.Button", "OK", "[100,500][500,700]"), kCancel,
              node("android.widget.Button", "OK", "[100,1800][500,2000]")}));
  expect_stale(page, ok, "now matches 2 elements");
}

TEST_F(ScreenChangedByItself, ChangedTextIsAStaleRefAndNothingIsSent) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t ok = snapshot_then_change(
      page, "OK",
      screen({node("android.widget.Button", "Delete", "[100,1000][500,1200]"), kCancel, kSend}));
  expect_stale(page, ok, "is gone from the screen");
}

TEST_F(ScreenChangedByItself, AnUnchangedScreenActsOnTheSamePlace) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t ok = ref_of(page.snapshot(), "OK");
  page.tap(ok);
  EXPECT_EQ(taps(vd_).back(), "input tap 300 1100");
  EXPECT_TRUE(page.last_ref_checks()[0].checked);
  EXPECT_FALSE(page.last_ref_checks()[0].moved);
}

// The relaxed policy's named risk, shown: it does not notice a screen that changed by itself.
TEST_F(ScreenChangedByItself, WhenChangedMissesAScreenThatChangedByItself) {
  PageOptions options;
  options.ref_check = RefCheck::when_changed;
  Page page = Page::connect(vd_.target(), options);
  const std::uint32_t ok =
      snapshot_then_change(page, "OK",
                           screen({node("android.widget.Button", "Cancel", "[100,1000][500,1200]"),
                                   node("android.widget.Button", "OK", "[600,1000][1000,1200]")}));
  page.tap(ok);
  EXPECT_EQ(taps(vd_).back(), "input tap 300 1100") << "the documented risk: Cancel is tapped";
  EXPECT_FALSE(page.last_ref_checks()[0].checked);
}

// ---- the same through the CLI session and the MCP tools

// What an action through a surface answered.
struct Answer {
  bool ok = false;
  std::string text;
};

// One surface an agent acts through: snapshot, then tap a ref.
class Surface {
 public:
  virtual ~Surface() = default;
  virtual std::string snapshot() = 0;
  virtual Answer tap(int ref) = 0;
};

// The CLI: `adbwire open`, then `snapshot --print` and `tap N`, each a process.
class CliSurface final : public Surface {
 public:
  explicit CliSurface(const std::string& target) {
    env_ = {"ADBWIRE_SESSION=" + (folder_.path() / "session.sock").string(),
            "XDG_RUNTIME_DIR=" + (folder_.path() / "run").string(),
            "HOME=" + folder_.path().string(), "PATH=/usr/bin:/bin"};
    const test::ProcessResult opened = run({"open", target});
    EXPECT_EQ(opened.exit_code, 0) << opened.err;
  }
  ~CliSurface() override { run({"kill-server"}); }
  std::string snapshot() override { return run({"snapshot", "--print"}).out; }
  Answer tap(int ref) override {
    const test::ProcessResult result = run({"tap", std::to_string(ref)});
    return {result.exit_code == 0, result.out + result.err};
  }

 private:
  test::ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    // The working folder is the test's: snapshot files go under its .adbwire.
    const auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(folder_.path());
    test::ProcessResult result = test::run_process(args, env_, {});
    std::filesystem::current_path(cwd);
    return result;
  }
  test::TempDir folder_;
  std::vector<std::string> env_;
};

// The MCP tools, called as `adbwire mcp`'s worker calls them.
class McpSurface final : public Surface {
 public:
  explicit McpSurface(const std::string& target) {
    mcp::DeviceToolsOptions options;
    options.target = target;
    options.snapshot_dir = folder_.path();
    tools_.emplace(options);
  }
  std::string snapshot() override { return text(tools_->call("snapshot", {}, cancel_)); }
  Answer tap(int ref) override {
    const mcp::Json result = tools_->call("tap", {{"ref", ref}}, cancel_);
    return {!result.value("isError", false), text(result)};
  }

 private:
  static std::string text(const mcp::Json& result) {
    std::string out;
    for (const mcp::Json& block : result["content"]) {
      if (block["type"] == "text") out += block["text"].get<std::string>() + "\n";
    }
    return out;
  }
  test::TempDir folder_;
  detail::CancelToken cancel_;
  std::optional<mcp::DeviceTools> tools_;
};

// The ref a printed snapshot gives the button showing text.
int printed_ref(const std::string& snapshot, const std::string& text) {
  std::smatch match;
  const std::regex line("\\[ref=(\\d+)\\] \"" + text + "\"");
  if (std::regex_search(snapshot, match, line)) return std::stoi(match[1]);
  ADD_FAILURE() << "no ref for " << text << " in\n" << snapshot;
  return 0;
}

enum class Via { cli, mcp };

class ScreenChangedThrough : public ScreenChangedByItself,
                             public ::testing::WithParamInterface<Via> {
 protected:
  std::unique_ptr<Surface> surface() {
    if (GetParam() == Via::cli) return std::make_unique<CliSurface>(vd_.target());
    return std::make_unique<McpSurface>(vd_.target());
  }
  // Snapshot, the screen changes to `changed`, tap the ref `text` had.
  Answer tap_after_change(const std::string& text, const std::string& changed) {
    const std::unique_ptr<Surface> agent = surface();
    const int ref = printed_ref(agent->snapshot(), text);
    vd_.show_dump(changed);
    return agent->tap(ref);
  }
  void expect_refused(const Answer& answer, std::size_t taps_before) {
    EXPECT_FALSE(answer.ok) << answer.text;
    EXPECT_NE(answer.text.find("nothing was sent"), std::string::npos) << answer.text;
    EXPECT_NE(answer.text.find("snapshot"), std::string::npos) << answer.text;
    EXPECT_EQ(taps(vd_).size(), taps_before) << "something was tapped";
  }
};

TEST_P(ScreenChangedThrough, AMovedElementIsTappedWhereItIsNowAndTheReplySaysSo) {
  const Answer answer = tap_after_change(
      "OK", screen({kCancel, node("android.widget.Button", "OK", "[100,1800][500,2000]")}));
  EXPECT_TRUE(answer.ok) << answer.text;
  EXPECT_EQ(taps(vd_).back(), "input tap 300 1900");
  EXPECT_NE(answer.text.find("moved"), std::string::npos) << answer.text;
}

TEST_P(ScreenChangedThrough, SwappedButtonsTapTheOneAskedFor) {
  const Answer answer = tap_after_change(
      "OK", screen({node("android.widget.Button", "Cancel", "[100,1000][500,1200]"),
                    node("android.widget.Button", "OK", "[600,1000][1000,1200]"), kSend}));
  EXPECT_TRUE(answer.ok) << answer.text;
  EXPECT_EQ(taps(vd_).back(), "input tap 800 1100") << "tapped Cancel where OK was";
}

TEST_P(ScreenChangedThrough, RemovedDuplicatedOrRelabelledIsRefusedAndNothingIsSent) {
  expect_refused(tap_after_change("Send", screen({kOk, kCancel})), 0);
  expect_refused(
      tap_after_change("OK",
                       screen({node("android.widget.Button", "OK", "[100,500][500,700]"), kCancel,
                               node("android.widget.Button", "OK", "[100,1800][500,2000]")})),
      0);
  expect_refused(tap_after_change(
                     "OK", screen({node("android.widget.Button", "Delete", "[100,1000][500,1200]"),
                                   kCancel, kSend})),
                 0);
}

INSTANTIATE_TEST_SUITE_P(Surfaces, ScreenChangedThrough, ::testing::Values(Via::cli, Via::mcp),
                         [](const ::testing::TestParamInfo<Via>& info) {
                           return info.param == Via::cli ? "cli" : "mcp";
                         });

// ---- a list that scrolls by itself: rows alike, each with its own Follow button

constexpr int kRowHeight = 200;
constexpr int kListTop = 200;

// xml (a node) with one of its attributes set to value.
std::string with(std::string xml, const std::string& attribute, const std::string& value) {
  const std::size_t at = xml.find(" " + attribute + "=\"") + attribute.size() + 3;
  xml.replace(at, xml.find('"', at) - at, value);
  return xml;
}

// A node that holds others (close it with "</node>"), a list when scrollable.
std::string open_node(const std::string& cls, const std::string& bounds, bool scrollable = false) {
  std::string xml = with(node(cls, "", bounds, "clickable=\"false\""), "scrollable",
                         scrollable ? "true" : "false");
  xml.replace(xml.size() - 2, 2, ">");
  return xml;
}

std::string bounds_of(int left, int top, int right, int bottom) {
  return "[" + std::to_string(left) + "," + std::to_string(top) + "][" + std::to_string(right) +
         "," + std::to_string(bottom) + "]";
}

// A feed of `rows` rows, kRowHeight px each, in a list at [0,200][1080,2200]: each row shows a
// name ("user N"; none when `named` is false, so rows differ in nothing) and a Follow button.
// The rows past the list's bottom scroll in as it moves (VirtualDevice::scroll_after_next_dump).
std::string feed(int rows, bool named) {
  std::string list =
      node("android.widget.TextView", "Suggested for you", "[0,60][1080,200]",
           "clickable=\"false\"") +
      open_node("androidx.recyclerview.widget.RecyclerView", "[0,200][1080,2200]", true);
  for (int i = 1; i <= rows; ++i) {
    const int top = kListTop + (i - 1) * kRowHeight;
    list += open_node("android.widget.LinearLayout", bounds_of(0, top, 1080, top + kRowHeight)) +
            with(node("android.widget.ImageView", "", bounds_of(40, top + 40, 160, top + 160),
                      "clickable=\"false\""),
                 "content-desc", "Profile photo") +
            node("android.widget.TextView", named ? "user " + std::to_string(i) : "",
                 bounds_of(200, top + 60, 700, top + 140), "clickable=\"false\"") +
            node("android.widget.Button", "Follow", bounds_of(760, top + 50, 1040, top + 150)) +
            "</node>";
  }
  return screen({list + "</node>"});
}

// The last `input tap` point, from the device's log.
ui::Point last_tap(const VirtualDevice& vd) {
  const std::vector<std::string> all = taps(vd);
  ui::Point p;
  if (!all.empty()) std::sscanf(all.back().c_str(), "input tap %d %d", &p.x, &p.y);
  return p;
}

// The ref a printed snapshot gives the Follow button of the row showing `name`, else of the
// `row`th Follow button.
int follow_ref(const std::string& snapshot, const std::string& name, int row) {
  std::smatch match;
  if (!name.empty()) {
    const std::regex line("\"" + name + "\"\\n *- Button \\[ref=(\\d+)\\] \"Follow\"");
    if (std::regex_search(snapshot, match, line)) return std::stoi(match[1]);
  } else {
    const std::regex line("- Button \\[ref=(\\d+)\\] \"Follow\"");
    int seen = 0;
    for (auto it = std::sregex_iterator(snapshot.begin(), snapshot.end(), line);
         it != std::sregex_iterator(); ++it) {
      if (++seen == row) return std::stoi((*it)[1]);
    }
  }
  ADD_FAILURE() << "no Follow ref for row " << row << " in\n" << snapshot;
  return 0;
}

enum class Through { page, cli, mcp };

// Page itself as a surface.
class PageSurface final : public Surface {
 public:
  explicit PageSurface(const std::string& target) : page_(Page::connect(target)) {}
  std::string snapshot() override { return page_.snapshot().to_text(); }
  Answer tap(int ref) override {
    try {
      page_.tap(static_cast<std::uint32_t>(ref));
      return {true, "tapped"};
    } catch (const Error& e) {
      return {false, e.what()};
    }
  }

 private:
  Page page_;
};

class ListScrollingByItself : public ::testing::TestWithParam<Through> {
 protected:
  void SetUp() override { vd_.start(); }
  std::unique_ptr<Surface> surface() {
    switch (GetParam()) {
      case Through::page:
        return std::make_unique<PageSurface>(vd_.target());
      case Through::cli:
        return std::make_unique<CliSurface>(vd_.target());
      case Through::mcp:
        break;
    }
    return std::make_unique<McpSurface>(vd_.target());
  }
  // A snapshot of the feed, the list scrolls down by `by` px, then a tap on row 3's Follow
  // button: it lands on that very button, where it is now, or nothing is sent. Returns whether
  // it landed.
  bool tap_row_3_after_scroll(Surface& agent, int by, bool named) {
    vd_.show_dump(feed(20, named));
    vd_.scroll_after_next_dump(-by);
    const int ref = follow_ref(agent.snapshot(), named ? "user 3" : "", 3);
    const std::size_t touched = vd_.touched().size();
    const std::size_t sent = taps(vd_).size();
    const Answer answer = agent.tap(ref);
    if (!answer.ok) {
      EXPECT_EQ(taps(vd_).size(), sent) << "refused, yet something was tapped: " << answer.text;
      EXPECT_NE(answer.text.find("nothing was sent"), std::string::npos) << answer.text;
      return false;
    }
    EXPECT_EQ(vd_.touched().size(), touched + 1) << answer.text;
    if (named) {
      EXPECT_EQ(vd_.touched().back(), "\"Follow\" in row \"Profile photo / user 3\"")
          << by << " px";
    }
    // Row 3's button as the list shows it now.
    const int top = kListTop + 2 * kRowHeight - by;
    const ui::Bounds button{760, top + 50, 1040, top + 150};
    EXPECT_TRUE(button.contains(last_tap(vd_)))
        << "scrolled " << by << " px: tapped " << last_tap(vd_).x << "," << last_tap(vd_).y
        << ", row 3's Follow is at " << top + 50 << ".." << top + 150;
    return true;
  }

  VirtualDevice vd_;
};

// Rows told apart by their names: every amount of scroll, from a pixel to two rows, taps row 3's
// button where it is now, never the row that took its place.
TEST_P(ListScrollingByItself, EachTapHitsTheSameRowsButtonWhereItIsNow) {
  const std::unique_ptr<Surface> agent = surface();
  for (const int by : {1, kRowHeight / 2, kRowHeight, 2 * kRowHeight}) {
    SCOPED_TRACE(std::to_string(by) + " px");
    EXPECT_TRUE(tap_row_3_after_scroll(*agent, by, true));
  }
}

// Rows alike in everything: a ref cannot tell its row from the one that took its place, so once
// the look-alikes moved nothing is tapped (a pixel's move that changed no 8-px cell still taps
// the same button). Moved by whole rows, such rows show the very same screen as before: no
// reading of it can tell (ui.hpp, "Row context").
TEST_P(ListScrollingByItself, RowsAlikeInEverythingAreRefusedOnceTheyMoved) {
  const std::unique_ptr<Surface> agent = surface();
  for (const int by : {kRowHeight / 2, 3 * kRowHeight / 2, kRowHeight + 8})
    EXPECT_FALSE(tap_row_3_after_scroll(*agent, by, false)) << by << " px";
  tap_row_3_after_scroll(*agent, 1, false);
}

INSTANTIATE_TEST_SUITE_P(Surfaces, ListScrollingByItself,
                         ::testing::Values(Through::page, Through::cli, Through::mcp),
                         [](const ::testing::TestParamInfo<Through>& info) {
                           return info.param == Through::page  ? "page"
                                  : info.param == Through::cli ? "cli"
                                                               : "mcp";
                         });

// ---- typing that lands

const std::string kField = node("android.widget.EditText", "", "[100,300][1000,450]",
                                "clickable=\"true\" hint=\"Message\"");

TEST(Typing, WaitsForTheFieldsFocusBeforeSendingText) {
  VirtualDevice vd;
  vd.start();
  vd.show_dump(screen({kField, kSend}));
  vd.set_focus_delay(300ms);  // a phone busy bringing the keyboard up
  PageOptions options;
  options.typing.settle = 500ms;
  Page page = Page::connect(vd.target(), options);
  const ui::Snapshot& shot = page.snapshot();
  const std::uint32_t field = shot.refs()[0].ref;
  page.type(field, "hello world");
  EXPECT_NE(page.snapshot().to_text().find("\"hello world\""), std::string::npos)
      << page.last_snapshot().to_text();
}

TEST(Typing, TextThatDidNotArriveIsAnErrorSayingWhatArrived) {
  VirtualDevice vd;
  vd.start();
  vd.show_dump(screen({kField, kSend}));
  vd.set_focus_delay(1s);
  PageOptions options;
  options.typing.settle = 0ms;  // no wait: the text goes before the field has focus
  Page page = Page::connect(vd.target(), options);
  const std::uint32_t field = page.snapshot().refs()[0].ref;
  try {
    page.type(field, "hello");
    ADD_FAILURE() << "lost text went unnoticed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("the field now reads \"\""), std::string::npos)
        << e.what();
  }
  // Without a read-back (ref checks off) the same loss is not seen: the documented trade.
  options.ref_check = RefCheck::never;
  Page unchecked = Page::connect(vd.target(), options);
  unchecked.snapshot();
  EXPECT_NO_THROW(unchecked.type(field, "hello"));
}

// A field and a button, a Page on them, and the field's ref.
class TypingInto : public ::testing::Test {
 protected:
  void SetUp() override {
    vd_.start();
    vd_.show_dump(screen({kField, kSend}));
  }
  std::uint32_t field(Page& page) { return page.snapshot().refs()[0].ref; }
  VirtualDevice vd_;
};

TEST_F(TypingInto, AFieldThatShowsTheTextLateIsReadUntilItDoes) {
  vd_.set_field_quirks({.show_delay = 100ms});
  Page page = Page::connect(vd_.target());
  const TypeResult result = page.type(field(page), "hello");
  EXPECT_EQ(result.check, TypeResult::Check::as_typed);
  EXPECT_EQ(result.reads, "hello");
  EXPECT_EQ(result.before, "");
}

TEST_F(TypingInto, AFieldThatFormatsTheTextIsNoErrorAndSaysWhatItReads) {
  vd_.set_field_quirks({.phone_format = true});
  Page page = Page::connect(vd_.target());
  const TypeResult result = page.type(field(page), "5551234567");
  EXPECT_EQ(result.check, TypeResult::Check::reads_differently);
  EXPECT_EQ(result.reads, "(555) 123-4567");
}

TEST_F(TypingInto, AFieldThatDropsCharactersSaysWhatArrived) {
  vd_.set_field_quirks({.drop_every = 3});
  Page page = Page::connect(vd_.target());
  const TypeResult result = page.type(field(page), "abcdef", {.settle = 200ms});
  EXPECT_EQ(result.check, TypeResult::Check::reads_differently);
  EXPECT_EQ(result.reads, "abde");
}

TEST_F(TypingInto, AButtonIsRefusedAndNothingIsSent) {
  Page page = Page::connect(vd_.target());
  const std::uint32_t send = ref_of(page.snapshot(), "Send");
  const std::size_t before = vd_.events().size();
  try {
    page.type(send, "hello");
    ADD_FAILURE() << "typed into a button";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("ref " + std::to_string(send) +
                                         " (Button \"Send\") is "
                                         "not a text field"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("Text fields on the screen: ref 1 (TextInput "
                                         "hint=\"Message\")"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing was sent"), std::string::npos) << e.what();
  }
  EXPECT_EQ(vd_.events().size(), before) << "something was sent";
}

TEST_F(TypingInto, APasswordFieldIsNeverReadBack) {
  vd_.show_dump(screen({with(kField, "password", "true"), kSend}));
  Page page = Page::connect(vd_.target());
  const TypeResult result = page.type(field(page), "secret");
  EXPECT_EQ(result.check, TypeResult::Check::not_checked);
  EXPECT_NE(result.why.find("password"), std::string::npos) << result.why;
  EXPECT_EQ(result.reads, "");
}

TEST(Typing, WithTheDumperFocusIsWatchedInsteadOfWaitedFor) {
  VirtualDevice vd;
  vd.start();
  vd.show_dump(screen({kField, kSend}));
  vd.set_focus_delay(300ms);
  PageOptions options;
  options.helper = PageOptions::Helper::on;
  options.typing.settle = 0ms;  // not used: the dumper sees the focus arrive
  Page page = Page::connect(vd.target(), options);
  const std::uint32_t field = page.snapshot().refs()[0].ref;
  page.type(field, "quick");
  EXPECT_NE(page.snapshot().to_text().find("\"quick\""), std::string::npos)
      << page.last_snapshot().to_text();
}

}  // namespace
}  // namespace adbwire
