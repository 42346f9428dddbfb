// Every reply says what really happened, through the verbs an agent calls (the MCP tools, as
// `adbwire mcp`'s worker calls them): selectors act on the element they matched, in its own
// bounds, or say why not; type says what the field reads; a disabled element, a failed logcat,
// a device without screenrecord or without the activity manager's answer are said, not hidden.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"
#include "integration/verb_tools.hpp"
#include "mcp/device_tools.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using mcp::Json;

// A node with the attributes uiautomator writes; extra gives text, content-desc, clickable,
// enabled and any other.
std::string node(const std::string& cls, const std::string& bounds, const std::string& extra) {
  return "<node index=\"0\" resource-id=\"\" class=\"" + cls +
         "\" package=\"com.example.chat\" checkable=\"false\" checked=\"false\" "
         "focusable=\"false\" focused=\"false\" long-clickable=\"false\" password=\"false\" "
         "selected=\"false\" " +
         (extra.find("scrollable=") == std::string::npos ? "scrollable=\"false\" " : "") + extra +
         " bounds=\"" + bounds + "\"/>";
}
std::string text(const std::string& words, const std::string& bounds,
                 const std::string& extra = "") {
  return node(
      "android.widget.TextView", bounds,
      "text=\"" + words + "\" content-desc=\"\" clickable=\"false\" enabled=\"true\" " + extra);
}
std::string open(const std::string& cls, const std::string& bounds, const std::string& extra) {
  std::string xml = node(cls, bounds, "text=\"\" " + extra);
  xml.replace(xml.size() - 2, 2, ">");
  return xml;
}

// A chat: a title, a full-screen list of messages (a clickable bubble described as a voice
// message, a note with no ref of its own, names alike), a hidden and an off-screen line, a
// disabled button, a record button described as a voice message, and a message field.
std::string chat() {
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">" +
         open("android.widget.FrameLayout", "[0,0][1080,2400]",
              "content-desc=\"\" clickable=\"false\" enabled=\"true\"") +
         text("Chats", "[40,60][600,180]") +
         open("androidx.recyclerview.widget.RecyclerView", "[0,200][1080,2000]",
              "content-desc=\"\" clickable=\"false\" enabled=\"true\" scrollable=\"true\"") +
         open("android.widget.LinearLayout", "[0,200][1080,400]",
              "content-desc=\"Voice message\" clickable=\"true\" enabled=\"true\"") +
         text("Alice", "[40,220][500,300]") + text("0:42", "[40,300][300,380]") + "</node>" +
         text("Alice Cooper", "[40,420][700,500]") + text("Pinned note", "[40,1500][600,1560]") +
         text("Hidden line", "[40,1600][600,1660]", "visible-to-user=\"false\"") +
         text("Sliver", "[40,1990][600,1994]") + "</node>" +
         text("Far below", "[40,2500][600,2560]") +
         node("android.widget.Button", "[40,2050][500,2150]",
              "text=\"Call\" content-desc=\"\" clickable=\"true\" enabled=\"false\"") +
         node("android.view.View", "[900,2200][1040,2340]",
              "text=\"\" content-desc=\"Voice message\" clickable=\"false\" enabled=\"true\"") +
         node("android.widget.EditText", "[40,2200][860,2340]",
              "text=\"\" hint=\"Message\" content-desc=\"\" clickable=\"true\" enabled=\"true\"") +
         "</node></hierarchy>";
}

class VerbReplies : public ::testing::Test {
 protected:
  VerbReplies() { start({}); }
  // A device of these options (showing the chat unless it has screens of its own) and the
  // tools on it.
  void start(VirtualDeviceOptions options) {
    tools_.reset();
    const bool own_screens = !options.screens.empty();
    device_.emplace(std::move(options));
    device_->start();
    if (!own_screens) device_->show_dump(chat());
    tools_.emplace(test::verb_tools_options(*device_, keys_.path(), work_.path()));
  }
  struct Said {
    bool ok = false;
    std::string text;
  };
  Said call(const std::string& verb, Json arguments = Json::object()) {
    const Json result = tools_->call(verb, arguments, cancel_);
    Said said{!result.value("isError", false), {}};
    for (const Json& block : result["content"]) {
      if (block["type"] == "text") said.text += block["text"].get<std::string>() + "\n";
    }
    return said;
  }
  Said without(const std::string& command, const std::string& verb);
  std::vector<std::string> taps() const {
    std::vector<std::string> out;
    for (const std::string& e : device_->events()) {
      if (e.starts_with("input tap ")) out.push_back(e);
    }
    return out;
  }
  int ref_of(const std::string& line) {
    std::smatch match;
    const std::string shot = call("snapshot").text;
    if (std::regex_search(shot, match, std::regex(line + " \\[ref=(\\d+)\\]")))
      return std::stoi(match[1]);
    ADD_FAILURE() << "no " << line << " in\n" << shot;
    return 0;
  }

  test::TempDir keys_;
  test::TempDir work_;
  std::optional<VirtualDevice> device_;
  std::optional<mcp::DeviceTools> tools_;
  mcp::CancelToken cancel_;
};

// ---- selectors

TEST_F(VerbReplies, AMatchWithoutARefIsTappedInItsOwnBoundsNotItsListsCentre) {
  const Said said = call("tap", {{"text", "Pinned note"}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_EQ(taps().back(), "input tap 320 1530") << "the list's centre would be 540 1100";
  EXPECT_NE(said.text.find("Tapped Text \"Pinned note\" at (320, 1530), inside its own bounds"),
            std::string::npos)
      << said.text;
  EXPECT_EQ(device_->touched().back(), "\"Pinned note\"");
}

TEST_F(VerbReplies, TwoEqualMatchesOneWithARefAreAnErrorListingBothAndNothingIsTapped) {
  const Said said = call("tap", {{"desc", "Voice message"}});
  EXPECT_FALSE(said.ok) << said.text;
  EXPECT_NE(said.text.find("2 elements match desc \"Voice message\" equally well; nothing was "
                           "done"),
            std::string::npos)
      << said.text;
  EXPECT_NE(said.text.find("- Group [ref="), std::string::npos) << said.text;
  EXPECT_NE(said.text.find("centre (540, 300)"), std::string::npos) << said.text;
  EXPECT_NE(said.text.find("- View (Voice message) centre (970, 2270)"), std::string::npos)
      << said.text;
  EXPECT_TRUE(taps().empty());
}

TEST_F(VerbReplies, AnExactMatchBeatsASubstring) {
  const Said said = call("tap", {{"text", "Alice"}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_EQ(device_->touched().back(), "\"Alice\" in row \"Voice message / 0:42\"");
  const Said partial = call("tap", {{"text", "cooper"}});
  ASSERT_TRUE(partial.ok) << partial.text;
  EXPECT_EQ(device_->touched().back(), "\"Alice Cooper\"");
}

TEST_F(VerbReplies, AnElementOffTheScreenOrTooSmallIsAnErrorSayingSo) {
  const Said far = call("tap", {{"text", "Far below"}});
  EXPECT_FALSE(far.ok) << far.text;
  EXPECT_NE(far.text.find("Text \"Far below\" centre (320, 2530) is not on the screen; scroll"),
            std::string::npos)
      << far.text;
  const Said hidden = call("tap", {{"text", "Hidden line"}});
  EXPECT_FALSE(hidden.ok) << hidden.text;
  EXPECT_NE(hidden.text.find("none is on the screen"), std::string::npos) << hidden.text;
  const Said sliver = call("tap", {{"text", "Sliver"}});
  EXPECT_FALSE(sliver.ok) << sliver.text;
  EXPECT_NE(sliver.text.find("only 560x4 px of it is on the screen, too small to tap"),
            std::string::npos)
      << sliver.text;
  EXPECT_TRUE(taps().empty());
}

TEST_F(VerbReplies, TypeBySelectorOnSomethingThatTakesNoTextIsRefused) {
  const Said said = call("type", {{"selector", "Chats"}, {"text", "hi"}});
  EXPECT_FALSE(said.ok) << said.text;
  EXPECT_NE(said.text.find("Text \"Chats\" centre (320, 120) is not a text field; nothing was "
                           "sent. Text fields on the screen: ref "),
            std::string::npos)
      << said.text;
  EXPECT_TRUE(device_->events().empty());
}

// ---- what a reply says about the element and the field

TEST_F(VerbReplies, ATapOnADisabledElementSaysItIsDisabled) {
  const Said said = call("tap", {{"ref", ref_of("Button")}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_NE(said.text.find("is disabled on the screen: the app may ignore the action"),
            std::string::npos)
      << said.text;
}

TEST_F(VerbReplies, TypeSaysWhatAFormattingFieldNowReads) {
  device_->set_field_quirks({.phone_format = true});
  const Said said =
      call("type", {{"ref", ref_of("TextInput")}, {"text", "5551234567"}, {"settle_ms", 200}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_NE(said.text.find("The field now reads \"(555) 123-4567\": the same digits, formatted "
                           "by the app"),
            std::string::npos)
      << said.text;
}

TEST_F(VerbReplies, TypeSaysWhenCharactersWentMissing) {
  device_->set_field_quirks({.drop_every = 4});
  const Said said =
      call("type", {{"ref", ref_of("TextInput")}, {"text", "abcdefgh"}, {"settle_ms", 200}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_NE(said.text.find("The field now reads \"abcefg\": 2 typed character(s) are missing"),
            std::string::npos)
      << said.text;
}

// ---- failures behind a verb are errors

// A device lacking command, and the reply verb gets there.
VerbReplies::Said VerbReplies::without(const std::string& command, const std::string& verb) {
  VirtualDeviceOptions options;
  options.missing_commands = {command};
  start(options);
  return call(verb);
}

TEST_F(VerbReplies, LogsFromADeviceWithoutLogcatIsAnErrorNotAnEmptyLog) {
  const Said said = without("logcat", "logs");
  EXPECT_FALSE(said.ok) << said.text;
  EXPECT_NE(said.text.find("logcat failed on the device"), std::string::npos) << said.text;
  EXPECT_EQ(said.text.find("No log lines match"), std::string::npos) << said.text;
}

TEST_F(VerbReplies, RecordStartOnADeviceWithoutScreenrecordSaysSoBeforeClaimingToRecord) {
  const Said said = without("screenrecord", "record_start");
  EXPECT_FALSE(said.ok) << said.text;
  EXPECT_NE(said.text.find("this device has no screenrecord"), std::string::npos) << said.text;
  EXPECT_EQ(said.text.find("Recording"), std::string::npos) << said.text;
  const Said stop = call("record_stop");
  EXPECT_FALSE(stop.ok) << "no recording was left running: " << stop.text;
}

// ---- the foreground app from every source

VirtualDeviceOptions demo_without(std::vector<std::string> services) {
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  options.missing_services = std::move(services);
  return options;
}

TEST_F(VerbReplies, ADeviceThatAnswersOnlyDumpsysWindowStillNamesTheForegroundActivity) {
  start(demo_without({"activity"}));
  Page page = Page::connect(device_->target());
  const ForegroundActivity now = page.foreground();
  EXPECT_EQ(now.package, "com.example.adbwire.demo");
  EXPECT_EQ(now.activity, ".ListActivity");
  const Said said = call("snapshot", {{"activity", true}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_EQ(said.text.substr(0, said.text.find('\n')),
            "# app: com.example.adbwire.demo (.ListActivity)");
}

TEST_F(VerbReplies, WithNeitherManagerAnsweringTheScreensPackageNamesTheAppActivityUnknown) {
  start(demo_without({"activity", "window"}));
  Page page = Page::connect(device_->target());
  const ForegroundActivity now = page.foreground();
  EXPECT_EQ(now.package, "com.example.adbwire.demo");
  EXPECT_EQ(now.activity, "");
  const Said foreground = call("foreground");
  ASSERT_TRUE(foreground.ok) << foreground.text;
  EXPECT_NE(foreground.text.find("com.example.adbwire.demo (activity unknown"), std::string::npos)
      << foreground.text;
  const Said said = call("snapshot", {{"activity", true}});
  ASSERT_TRUE(said.ok) << said.text;
  EXPECT_EQ(said.text.substr(0, said.text.find('\n')),
            "# app: com.example.adbwire.demo (activity unknown)");
}

}  // namespace
}  // namespace adbwire
