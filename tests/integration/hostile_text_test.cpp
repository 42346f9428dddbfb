// Device text against every printer, and unquoted arguments against every verb.
//
// A device whose properties, resumed activity, packages, settings, log and screen hold terminal
// escapes (window title, clear screen, OSC 52 clipboard), C1 controls, DEL and a bidi override
// (VirtualDeviceOptions::hostile_output = escapes, kHostileText): nothing of it reaches a terminal
// raw, from one-shot commands, session verbs, --json, or the MCP server's JSON lines.
//
// Every string argument of every verb, set to text holding $, backticks, ';' and quotes, reaches
// the device's shell as one word: the virtual device expands an unquoted $NAME to nothing and
// refuses command substitution, so a verb that forgot to quote shows as a syntax error there.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adbwire/protocol/printable.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/mcp_lines.hpp"
#include "integration/temp_dir.hpp"
#include "mcp/device_tools.hpp"
#include "verbs/verb.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;

// What a terminal acts on, raw: C0 controls but line breaks, DEL, C1 controls (U+0080..U+009F
// in UTF-8) and the bidirectional overrides and isolates. "" when out holds none.
std::string raw_control_in(const std::string& out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    const auto next = i + 1 < out.size() ? static_cast<unsigned char>(out[i + 1]) : 0;
    const auto third = i + 2 < out.size() ? static_cast<unsigned char>(out[i + 2]) : 0;
    const bool control = (c < 0x20 && c != '\n') || c == 0x7f;
    const bool c1 = c == 0xc2 && next >= 0x80 && next <= 0x9f;
    const bool bidi = c == 0xe2 && ((next == 0x80 && third >= 0xaa && third <= 0xae) ||
                                    (next == 0x81 && third >= 0xa6 && third <= 0xa9));
    if (control || c1 || bidi) {
      return "byte " + std::to_string(c) + " at " + std::to_string(i) + " in " +
             protocol::printable(out.substr(i > 40 ? i - 40 : 0, 80));
    }
  }
  return "";
}

// A screen whose text and description carry the hostile text (XML allows all of it but ESC and
// the other C0 controls, which a device may send anyway; pugixml takes them).
std::string hostile_screen() {
  const std::string evil(kHostileText);
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
         "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
         "package=\"com.evil\" content-desc=\"\" clickable=\"false\" enabled=\"true\" "
         "bounds=\"[0,0][1080,2400]\"><node index=\"0\" text=\"title" +
         evil +
         "\" resource-id=\"com.evil:id/t\" class=\"android.widget.Button\" "
         "package=\"com.evil\" content-desc=\"desc" +
         evil +
         "\" clickable=\"true\" enabled=\"true\" visible-to-user=\"true\" "
         "bounds=\"[0,0][500,200]\" /></node></hierarchy>";
}

class HostileText : public ::testing::Test {
 protected:
  HostileText() {
    VirtualDeviceOptions options;
    options.hostile_output = HostileOutput::escapes;
    vd_.emplace(std::move(options));
    vd_->start();
    vd_->show_dump(hostile_screen());
    vd_->log('I', "tag" + std::string(kHostileText), "message" + std::string(kHostileText));
    fs::create_directories(dir_.path() / "home");
    fs::create_directories(dir_.path() / "run");
    ::chmod((dir_.path() / "run").c_str(), 0700);
  }

  test::ProcessResult adbwire(std::vector<std::string> args, std::string_view input = {}) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(std::move(args),
                             {"HOME=" + (dir_.path() / "home").string(),
                              "XDG_RUNTIME_DIR=" + (dir_.path() / "run").string(),
                              "PATH=/usr/bin:/bin", "ADBWIRE_NO_HOLDER=1"},
                             input, 60s);
  }

  // The run printed the device's text (kHostileText ends in "evil"), and nothing of it raw.
  void expect_shown_escaped(const std::string& what, const test::ProcessResult& run) {
    EXPECT_EQ(run.exit_code, 0) << what << ": " << run.err;
    const std::string all = run.out + run.err;
    EXPECT_NE(all.find("evil"), std::string::npos) << what << " did not show the text: " << all;
    EXPECT_EQ(raw_control_in(run.out), "") << what << " (stdout)";
    EXPECT_EQ(raw_control_in(run.err), "") << what << " (stderr)";
  }

  test::TempDir dir_;
  std::optional<VirtualDevice> vd_;
};

TEST_F(HostileText, EveryPrinterEscapesTheDevicesText) {
  const std::string& t = vd_->target();
  expect_shown_escaped("getprop", adbwire({"-s", t, "getprop"}));
  expect_shown_escaped("getprop NAME", adbwire({"-s", t, "getprop", "ro.build.version.sdk"}));
  expect_shown_escaped("logcat -d", adbwire({"-s", t, "logcat", "-d"}));
  expect_shown_escaped("snapshot", adbwire({"-s", t, "snapshot"}));
  expect_shown_escaped("snapshot --json", adbwire({"-s", t, "snapshot", "--json"}));

  // A session's replies: the verb's text holds the device's words.
  ASSERT_EQ(adbwire({"open", t}).exit_code, 0);
  for (const std::vector<std::string>& verb : {std::vector<std::string>{"foreground"},
                                               {"setting_get", "screen_off_timeout"},
                                               {"apps"},
                                               {"capabilities"},
                                               {"logs"},
                                               {"find", "--text", "title"},
                                               {"snapshot", "--print"},
                                               {"snapshot", "--json", "--print"}}) {
    expect_shown_escaped(verb[0], adbwire(verb));
  }
  EXPECT_EQ(adbwire({"close"}).exit_code, 0);

  // The MCP server's lines: JSON escapes what a terminal acts on as \uXXXX.
  const std::string input = test::tools_calls({{"foreground", Json::object()},
                                               {"setting_get", {{"key", "screen_off_timeout"}}},
                                               {"apps", Json::object()},
                                               {"logs", Json::object()},
                                               {"snapshot", Json::object()},
                                               {"snapshot", {{"json", true}}}});
  const test::ProcessResult mcp = adbwire({"mcp", t}, input);
  expect_shown_escaped("mcp", mcp);
  // The JSON still carries the text itself: a client that decodes it gets the device's words.
  const Json first = Json::parse(mcp.out.substr(0, mcp.out.find('\n')));
  const std::string text = first["result"]["content"][0].value("text", "");
  EXPECT_NE(text.find(std::string(kHostileText)), std::string::npos) << first;
}

// Printing many times over is the same as once: the edge escapes what a session already escaped.
TEST(TerminalText, JsonAndTextEscapesAreIdempotent) {
  const std::string json = Json{{"t", std::string(kHostileText)}}.dump(-1, ' ', false);
  const std::string once = protocol::printable_json(json);
  EXPECT_EQ(protocol::printable_json(once), once);
  EXPECT_EQ(raw_control_in(once), "");
  EXPECT_EQ(Json::parse(once)["t"], std::string(kHostileText));
  EXPECT_EQ(protocol::printable(protocol::printable(kHostileText)),
            protocol::printable(kHostileText));
}

// One word per argument on the device, whatever it holds.
TEST(VerbArguments, EveryStringArgumentReachesTheDeviceAsOneWord) {
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  VirtualDevice vd(options);
  vd.start();
  test::TempDir work;
  mcp::DeviceToolsOptions tools_options;
  tools_options.target = vd.target();
  tools_options.connect.keys.android_dir = work.path() / "keys";
  tools_options.snapshot_dir = work.path() / "saved";
  tools_options.verbs.settle = 0ms;
  mcp::DeviceTools tools(tools_options);
  mcp::CancelToken cancel;
  const std::string hostile = "x$HOME`id`;echo pwned'\"q${PATH}$(id)";
  std::size_t reached = 0;
  for (const verbs::Verb& verb : verbs::all()) {
    // shell runs its command as the device's shell on purpose; connect and devices name
    // targets on this computer, install a file on it (hostile_host_test); pair speaks to a
    // pairing port, never to a device's shell (and is off unless allowed).
    if (verb.name == "shell" || verb.name == "connect" || verb.name == "install" ||
        verb.name == "pair")
      continue;
    for (const verbs::Param& param : verb.params) {
      if (param.type != verbs::ParamType::string || !param.choices.empty()) continue;
      Json arguments = Json::object();
      for (const verbs::Param& other : verb.params) {
        if (!other.required) continue;
        if (other.type == verbs::ParamType::string && !other.choices.empty()) {
          arguments[std::string(other.name)] = std::string(other.choices.front());
        } else if (other.type == verbs::ParamType::string) {
          arguments[std::string(other.name)] = "com.example.adbwire.demo";
        } else if (other.type == verbs::ParamType::boolean) {
          arguments[std::string(other.name)] = false;
        } else {
          arguments[std::string(other.name)] = std::max<std::int64_t>(other.minimum, 1);
        }
      }
      if (verb.name == "wait") arguments["timeout_ms"] = 100;
      arguments[std::string(param.name)] = hostile;
      const std::size_t before = vd.events().size();
      const Json result = tools.call(std::string(verb.name), arguments, cancel);
      const std::vector<std::string> events = vd.events();
      for (std::size_t i = before; i < events.size(); ++i) {
        if (events[i].find(hostile) != std::string::npos) ++reached;
      }
      EXPECT_EQ(vd.shell_syntax_errors(), std::vector<std::string>{})
          << verb.name << " " << param.name << ": " << result;
    }
  }
  EXPECT_GE(reached, 5u) << "the hostile text reached too few device commands to show quoting";

  // A nested class's activity holds '$': launched as named, not as ".Outer".
  tools.call("launch", {{"package", "com.example.adbwire.demo"}, {"activity", ".Outer$Inner"}},
             cancel);
  const std::vector<std::string> events = vd.events();
  EXPECT_EQ(events.back(), "am start -n com.example.adbwire.demo/.Outer$Inner");
}

}  // namespace
}  // namespace adbwire
