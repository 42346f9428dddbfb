// Screens for eyes, end to end against the virtual device: a game-like screen (a picture with
// words, rendered here with Cairo, and a tree of one SurfaceView) is read from its pixels into
// [ocr] refs that tap the word's box after the usual ref check; a screen with neither tree nor
// text says so; screens with accessible elements read no pixels. Screenshots say their scale,
// marks carry the snapshot's refs, and a point read off a scaled screenshot taps the same screen
// point as off the unscaled one.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"
#include "integration/verb_tools.hpp"
#include "mcp/device_tools.hpp"
#include "unit/imaging/render.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using mcp::Json;

// A game's dump: one window holding one SurfaceView, nothing accessible.
std::string surface_dump() {
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
         "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
         "package=\"com.example.game\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
         "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
         "scrollable=\"false\" long-clickable=\"false\" password=\"false\" selected=\"false\" "
         "bounds=\"[0,0][1080,2400]\"><node index=\"0\" text=\"\" resource-id=\"\" "
         "class=\"android.view.SurfaceView\" package=\"com.example.game\" content-desc=\"\" "
         "checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" "
         "focusable=\"false\" focused=\"false\" scrollable=\"false\" long-clickable=\"false\" "
         "password=\"false\" selected=\"false\" bounds=\"[0,0][1080,2400]\"/></node></hierarchy>";
}

void write(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void write_png(const fs::path& path, const RawImage& image) {
  const EncodedImage png = encode(image, {});
  write(path, {reinterpret_cast<const char*>(png.bytes.data()), png.bytes.size()});
}

std::string bounds_text(const ui::Bounds& b) {
  return "[" + std::to_string(b.left) + "," + std::to_string(b.top) + "][" +
         std::to_string(b.right) + "," + std::to_string(b.bottom) + "]";
}

class Pixels : public ::testing::Test {
 protected:
  // The game: a menu (PLAY, SETTINGS, a title), PLAY leading to a level screen; and a blank
  // screen with the same tree.
  void SetUp() override {
    const fs::path dir = screens_.path();
    write(dir / "game.xml", surface_dump());
    write_png(dir / "menu.png", test::render_screen(1080, 2400, 30,
                                                    {{"Star Quest", 260, 500, 96},
                                                     {"PLAY", 120, 1500, 80},
                                                     {"SETTINGS", 600, 1500, 64}},
                                                    &boxes_));
    write_png(dir / "level.png", test::render_screen(1080, 2400, 30, {{"Level 1", 330, 1200, 96}}));
    write_png(dir / "blank.png", test::render_screen(1080, 2400, 30));
    write(dir / "screens.xml",
          "<screens start=\"menu\">"
          "<screen name=\"menu\" dump=\"game.xml\" png=\"menu.png\">"
          "<tap bounds=\"" +
              bounds_text(boxes_[1]) +
              "\" goto=\"level\"/>"
              "<tap bounds=\"[0,2300][100,2400]\" goto=\"blank\"/></screen>"
              "<screen name=\"level\" dump=\"game.xml\" png=\"level.png\"/>"
              "<screen name=\"blank\" dump=\"game.xml\" png=\"blank.png\"/>"
              "</screens>");
    VirtualDeviceOptions options;
    options.screens = dir;
    device_.emplace(std::move(options));
    device_->start();
  }
  std::vector<std::string> taps() const {
    std::vector<std::string> out;
    for (const std::string& e : device_->events())
      if (e.starts_with("input tap ")) out.push_back(e);
    return out;
  }
  static ui::Point tapped(const std::string& line) {
    ui::Point p;
    EXPECT_EQ(std::sscanf(line.c_str(), "input tap %d %d", &p.x, &p.y), 2) << line;
    return p;
  }
  mcp::DeviceTools& tools() {
    if (!tools_) tools_.emplace(test::verb_tools_options(*device_, keys_.path(), work_.path()));
    return *tools_;
  }
  struct Said {
    bool ok = false;
    std::string text;
    std::vector<Json> images;
  };
  Said call(const std::string& verb, Json arguments = Json::object()) {
    const Json result = tools().call(verb, arguments, cancel_);
    Said said{!result.value("isError", false), {}, {}};
    for (const Json& block : result["content"]) {
      if (block["type"] == "text") said.text += block["text"].get<std::string>() + "\n";
      if (block["type"] == "image") said.images.push_back(block);
    }
    return said;
  }

  test::TempDir screens_;
  test::TempDir keys_;
  test::TempDir work_;
  std::vector<ui::Bounds> boxes_;  // Star Quest, PLAY, SETTINGS as drawn
  std::optional<VirtualDevice> device_;
  std::optional<mcp::DeviceTools> tools_;
  mcp::CancelToken cancel_;
};

TEST_F(Pixels, AGameScreensWordsBecomeOcrRefsThatTapTheWordsBox) {
  Page page = Page::connect(device_->target());
  const ui::Snapshot& shot = page.snapshot();
  const std::string text = shot.to_text();
  EXPECT_NE(text.find("- Text [ref=1] \"Star Quest\" [ocr]"), std::string::npos) << text;
  EXPECT_NE(text.find("- Text [ref=2] \"PLAY\" [ocr]"), std::string::npos) << text;
  EXPECT_NE(text.find("- Text [ref=3] \"SETTINGS\" [ocr]"), std::string::npos) << text;
  EXPECT_EQ(text.find("no element to act on"), std::string::npos) << text;
  EXPECT_TRUE(page.ocr_status().ran);
  EXPECT_EQ(page.ocr_status().texts, 3U);
  EXPECT_GT(page.ocr_status().took.count(), 0);

  page.tap(2);
  ASSERT_EQ(taps().size(), 1U);
  const ui::Point at = tapped(taps()[0]);
  EXPECT_TRUE(boxes_[1].contains(at)) << taps()[0] << " is not inside PLAY's drawn box";
  EXPECT_TRUE(page.last_ref_checks()[0].checked);
  // The screen moved on to the level: SETTINGS is gone from the pixels, so its ref is stale and
  // nothing is tapped.
  std::error_code error;
  page.tap(3, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::stale_ref) << page.last_error();
  EXPECT_EQ(taps().size(), 1U);
  EXPECT_NE(page.snapshot().to_text().find("\"Level 1\" [ocr]"), std::string::npos);
}

TEST_F(Pixels, TheSnapshotReplySaysWhatReadingThePixelsCostOrThatTheScreenHasNeither) {
  const Said menu = call("snapshot");
  ASSERT_TRUE(menu.ok) << menu.text;
  EXPECT_TRUE(std::regex_search(
      menu.text, std::regex("^# OCR read 3 texts from the screen's pixels in \\d+ ms")))
      << menu.text;
  ASSERT_TRUE(call("tap", {{"x", 50}, {"y", 2350}}).ok);
  const Said blank = call("snapshot");
  ASSERT_TRUE(blank.ok) << blank.text;
  EXPECT_TRUE(std::regex_search(
      blank.text, std::regex("^# OCR read the screen's pixels in \\d+ ms and found no text")))
      << blank.text;
  EXPECT_NE(blank.text.find("no element to act on in com.example.game"), std::string::npos)
      << blank.text;
  const Said off = call("snapshot", {{"ocr", false}});
  EXPECT_EQ(off.text.find("OCR"), std::string::npos) << off.text;
}

TEST_F(Pixels, TheOneOffCliSnapshotSaysWhatReadingThePixelsCostFirst) {
  const test::TempDir home;
  const test::ProcessResult result = test::run_process(
      {ADBWIRE_CLI_PATH, "-s", device_->target(), "--no-daemon", "snapshot"},
      {"HOME=" + home.path().string(), "XDG_RUNTIME_DIR=" + home.path().string()}, {});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::regex_search(
      result.out, std::regex("^# OCR read 3 texts from the screen's pixels in \\d+ ms")))
      << result.out;
  EXPECT_NE(result.out.find("- Text [ref=2] \"PLAY\" [ocr]"), std::string::npos) << result.out;
}

TEST_F(Pixels, ScreensWithAccessibleElementsReadNoPixelsUnlessAsked) {
  VirtualDevice plain;
  plain.start();
  Page page = Page::connect(plain.target());
  page.snapshot();
  EXPECT_FALSE(page.ocr_status().ran);
  EXPECT_EQ(page.last_snapshot().to_text().find("[ocr]"), std::string::npos);
  page.set_ocr(PageOptions::Ocr::on);
  page.snapshot();
  EXPECT_TRUE(page.ocr_status().ran);
}

TEST_F(Pixels, MarksCarryTheSnapshotsRefsAndTheReplyStatesTheScale) {
  const Said snapshot = call("snapshot");
  ASSERT_TRUE(snapshot.ok);
  const Said marked = call("screenshot", {{"marks", true}});
  ASSERT_TRUE(marked.ok) << marked.text;
  ASSERT_EQ(marked.images.size(), 1U);
  EXPECT_EQ(marked.images[0]["mimeType"], "image/png");
  EXPECT_NE(marked.text.find("Screenshot 900x2000 PNG"), std::string::npos) << marked.text;
  EXPECT_NE(marked.text.find("scale 0.8333 of the 1080x2400 screen"), std::string::npos)
      << marked.text;
  EXPECT_NE(marked.text.find("Marks: 3 of the 3 refs of the latest snapshot"), std::string::npos)
      << marked.text;
  const Said plain = call("screenshot", {{"max_side", 1200}});
  EXPECT_NE(plain.text.find("scale 0.5 of the 1080x2400 screen"), std::string::npos) << plain.text;
}

TEST_F(Pixels, APointOfAScaledScreenshotTapsWhereTheSamePointOfTheUnscaledOneDoes) {
  Page page = Page::connect(device_->target());
  ScreenshotOptions full;
  EXPECT_EQ(page.screenshot(full, false).image.width, 1080U);
  page.tap_at({540, 1500, false, true});
  ScreenshotOptions half;
  half.max_side = 1200;
  EXPECT_EQ(page.screenshot(half, false).image.width, 540U);
  page.tap_at({270, 750, false, true});
  ScreenshotOptions model;  // the MCP default: 2000 px, scale 5/6
  model.max_side = 2000;
  EXPECT_EQ(page.screenshot(model, false).image.width, 900U);
  page.tap_at({450, 1250, false, true});
  ASSERT_EQ(taps().size(), 3U);
  EXPECT_EQ(taps()[0], "input tap 540 1500");
  EXPECT_EQ(taps()[1], taps()[0]);
  EXPECT_EQ(taps()[2], taps()[0]);
  std::error_code error;
  page.tap_at({900, 10, false, true}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument) << "off the 900x2000 screenshot";

  // The same through the verbs, swipe and long_press too.
  ASSERT_TRUE(call("screenshot", {{"max_side", 1200}}).ok);
  const Said tap = call("tap", {{"x", 270}, {"y", 750}, {"space", "screenshot"}});
  ASSERT_TRUE(tap.ok) << tap.text;
  EXPECT_EQ(taps().back(), "input tap 540 1500");
  ASSERT_TRUE(
      call(
          "swipe",
          {{"from_x", 270}, {"from_y", 750}, {"to_x", 270}, {"to_y", 250}, {"space", "screenshot"}})
          .ok);
  const std::vector<std::string> events = device_->events();
  EXPECT_EQ(events.back().rfind("input swipe 540 1500 540 500", 0), 0U) << events.back();
}

TEST_F(Pixels, PointsInScreenshotSpaceNeedAScreenshotFirst) {
  Page page = Page::connect(device_->target());
  std::error_code error;
  page.tap_at({10, 10, false, true}, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_NE(page.last_error().find("take one"), std::string::npos) << page.last_error();
  EXPECT_TRUE(taps().empty());
}

}  // namespace
}  // namespace adbwire
