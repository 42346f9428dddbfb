// The tools behind `adbwire mcp` (src/mcp/device_tools.*) on virtual devices, called as the
// server's worker calls them: the behaviour the SDK test does not reach (auto-snapshot, the
// snapshot budget, the shell switch, the device argument, stale refs, timeouts).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"
#include "mcp/device_tools.hpp"
#include "mcp/json_rpc.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kDemoScreens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";

VirtualDeviceOptions demo() {
  VirtualDeviceOptions options;
  options.screens = kDemoScreens;
  return options;
}

std::string text_of(const Json& result) {
  std::string text;
  for (const Json& block : result["content"]) {
    if (block["type"] == "text") text += block["text"].get<std::string>() + "\n";
  }
  return text;
}

// The ref a line of a snapshot gives the element with this text.
int ref_of(const std::string& snapshot, const std::string& text) {
  std::smatch match;
  const std::regex line("\\[ref=(\\d+)\\] \"" + text + "\"");
  return std::regex_search(snapshot, match, line) ? std::stoi(match[1]) : 0;
}

class McpTools : public ::testing::Test {
 protected:
  McpTools() : device_(demo()) { device_.start(); }

  DeviceToolsOptions options() const {
    DeviceToolsOptions o;
    o.target = device_.target();
    o.connect.keys.android_dir = keys_.path();
    o.snapshot_dir = work_.path() / "snapshots";
    o.verbs.settle = 0ms;
    return o;
  }
  Json call(DeviceTools& tools, const std::string& name, Json arguments = Json::object()) {
    return tools.call(name, arguments, cancel_);
  }

  test::TempDir keys_;
  test::TempDir work_;
  VirtualDevice device_;
  CancelToken cancel_;
};

TEST_F(McpTools, AutoSnapshotAppendsTheScreenAfterTheAction) {
  DeviceToolsOptions o = options();
  o.verbs.auto_snapshot = true;
  DeviceTools tools(o);
  const int add = ref_of(text_of(call(tools, "snapshot")), "Add item");
  ASSERT_GT(add, 0);
  const Json tapped = call(tools, "tap", {{"ref", add}});
  ASSERT_FALSE(tapped["isError"].get<bool>()) << text_of(tapped);
  ASSERT_EQ(tapped["content"].size(), 2u);
  const std::string after = tapped["content"][1]["text"];
  EXPECT_NE(after.find("refs are current"), std::string::npos) << after;
  EXPECT_NE(after.find("\"Save\""), std::string::npos) << after;
  // The refs of that snapshot are the ones the next action uses.
  EXPECT_FALSE(call(tools, "tap", {{"ref", ref_of(after, "Save")}})["isError"].get<bool>());
  EXPECT_EQ(device_.events().back().rfind("input tap ", 0), 0u);
}

TEST_F(McpTools, SnapshotOverTheBudgetIsSavedToAFileAndSummarized) {
  DeviceToolsOptions o = options();
  o.verbs.max_snapshot_chars = 120;  // the demo list renders to about 350 characters
  DeviceTools tools(o);
  const std::string reply = text_of(call(tools, "snapshot"));
  std::smatch match;
  ASSERT_TRUE(std::regex_search(reply, match, std::regex("saved in full to (\\S+)\\. "))) << reply;
  const fs::path saved = match[1].str();
  EXPECT_EQ(saved.parent_path(), o.snapshot_dir);
  std::ifstream in(saved);
  const std::string full((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(full.size(), 120u);
  EXPECT_NE(full.find("\"Add item\""), std::string::npos);
  EXPECT_NE(full.find("\"6 pieces\""), std::string::npos);
  // The reply is the summary, not the screen: plain text is left out.
  EXPECT_EQ(reply.find("6 pieces"), std::string::npos) << reply;
  // Only the saved file is in the folder: no temporary left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(o.snapshot_dir), fs::directory_iterator()), 1);
}

// Saved snapshots show the screen: private, and never written through a planted link.
TEST_F(McpTools, SavedSnapshotsArePrivateAndNeverFollowAPlantedLink) {
  DeviceToolsOptions o = options();
  o.verbs.max_snapshot_chars = 120;
  fs::create_directories(o.snapshot_dir);
  ::chmod(o.snapshot_dir.c_str(), 0700);
  std::ofstream(work_.path() / "victim.txt") << "victim\n";
  fs::create_symlink(work_.path() / "victim.txt", o.snapshot_dir / "snapshot-1.yml");
  DeviceTools tools(o);
  const std::string reply = text_of(call(tools, "snapshot"));
  ASSERT_NE(reply.find("saved in full to"), std::string::npos) << reply;
  std::ifstream victim(work_.path() / "victim.txt");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(victim)), std::istreambuf_iterator<char>()),
            "victim\n");
  struct stat st {};
  ASSERT_EQ(::lstat((o.snapshot_dir / "snapshot-1.yml").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(McpTools, ASnapshotFolderThatIsALinkOrOpenToOthersIsRefused) {
  DeviceToolsOptions o = options();
  o.verbs.max_snapshot_chars = 120;
  fs::create_directories(work_.path() / "elsewhere");
  fs::create_directory_symlink(work_.path() / "elsewhere", o.snapshot_dir);
  {
    DeviceTools tools(o);
    const Json reply = call(tools, "snapshot");
    EXPECT_TRUE(reply["isError"].get<bool>());
    EXPECT_NE(text_of(reply).find("is a symbolic link"), std::string::npos) << text_of(reply);
    EXPECT_TRUE(fs::is_empty(work_.path() / "elsewhere"));
  }
  fs::remove(o.snapshot_dir);
  fs::create_directories(o.snapshot_dir);
  ::chmod(o.snapshot_dir.c_str(), 0777);
  DeviceTools tools(o);
  const Json reply = call(tools, "snapshot");
  EXPECT_TRUE(reply["isError"].get<bool>());
  EXPECT_NE(text_of(reply).find("others may write there"), std::string::npos) << text_of(reply);
}

// Needs root (as CI runs): only root can make a folder that belongs to another user.
TEST_F(McpTools, ASnapshotFolderOfAnotherUserIsRefused) {
  ASSERT_EQ(::geteuid(), 0u) << "this test makes a folder owned by another user: run it as root";
  DeviceToolsOptions o = options();
  o.verbs.max_snapshot_chars = 120;
  fs::create_directories(o.snapshot_dir);
  ::chmod(o.snapshot_dir.c_str(), 0700);
  ASSERT_EQ(::chown(o.snapshot_dir.c_str(), 65534, 65534), 0);
  DeviceTools tools(o);
  const Json reply = call(tools, "snapshot");
  EXPECT_TRUE(reply["isError"].get<bool>());
  EXPECT_NE(text_of(reply).find("belongs to another user"), std::string::npos) << text_of(reply);
}

// Without --snapshot-dir: a folder of the per-user runtime folder, 0700, not a guessable /tmp name.
TEST_F(McpTools, TheDefaultSnapshotFolderIsPrivate) {
  test::TempDir runtime;
  const char* old = std::getenv("XDG_RUNTIME_DIR");
  const std::string saved_env = old ? old : "";
  ::setenv("XDG_RUNTIME_DIR", runtime.path().c_str(), 1);
  DeviceToolsOptions o = options();
  o.snapshot_dir.clear();
  o.verbs.max_snapshot_chars = 120;
  std::string reply;
  {
    DeviceTools tools(o);
    reply = text_of(call(tools, "snapshot"));
  }
  if (old) {
    ::setenv("XDG_RUNTIME_DIR", saved_env.c_str(), 1);
  } else {
    ::unsetenv("XDG_RUNTIME_DIR");
  }
  std::smatch match;
  ASSERT_TRUE(std::regex_search(reply, match, std::regex("saved in full to (\\S+)\\. "))) << reply;
  const fs::path saved = match[1].str();
  EXPECT_EQ(saved.parent_path(),
            runtime.path() / "adbwire" / ("mcp-" + std::to_string(::getpid())));
  struct stat st {};
  ASSERT_EQ(::stat(saved.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(saved.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(McpTools, ShellIsOfferedOnlyWhenAllowed) {
  DeviceTools closed(options());
  EXPECT_THROW(call(closed, "shell", {{"command", "echo hi"}}), RpcError);
  const Json listed = closed.list();
  EXPECT_TRUE(std::none_of(listed.begin(), listed.end(),
                           [](const Json& t) { return t["name"] == "shell"; }));

  DeviceToolsOptions o = options();
  o.verbs.allow_shell = true;
  DeviceTools open(o);
  const Json result = call(open, "shell", {{"command", "echo hi; exit 3"}});
  EXPECT_NE(text_of(result).find("hi"), std::string::npos) << text_of(result);
  EXPECT_NE(text_of(result).find('3'), std::string::npos) << text_of(result);
}

// Pairing gives this computer lasting access to a phone: off unless the server allows it.
TEST_F(McpTools, PairIsOfferedOnlyWhenAllowed) {
  test::TempDir phone_dir;
  VirtualDeviceOptions phone;
  phone.tls = true;
  phone.keys_file = phone_dir.path() / "adb_keys";
  phone.pairing_code = "482915";
  VirtualDevice wireless(phone);
  wireless.start();
  const std::string address = "127.0.0.1:" + std::to_string(wireless.pairing_port());
  DeviceTools closed(options());
  EXPECT_THROW(call(closed, "pair", {{"address", address}, {"code", "482915"}}), RpcError);
  const Json listed = closed.list();
  EXPECT_TRUE(std::none_of(listed.begin(), listed.end(),
                           [](const Json& t) { return t["name"] == "pair"; }));
  EXPECT_EQ(wireless.hosts_paired(), 0u);

  DeviceToolsOptions o = options();
  o.verbs.allow_pair = true;
  DeviceTools open(o);
  const Json offered = open.list();
  EXPECT_TRUE(std::any_of(offered.begin(), offered.end(),
                          [](const Json& t) { return t["name"] == "pair"; }));
  const Json wrong = call(open, "pair", {{"address", address}, {"code", "000000"}});
  EXPECT_TRUE(wrong["isError"].get<bool>());
  EXPECT_NE(text_of(wrong).find("pairing code is wrong"), std::string::npos) << text_of(wrong);
  const Json paired = call(open, "pair", {{"address", address}, {"code", "482915"}});
  EXPECT_FALSE(paired["isError"].get<bool>()) << text_of(paired);
  EXPECT_NE(text_of(paired).find("[guid=" + wireless.guid() + "]"), std::string::npos)
      << text_of(paired);
  EXPECT_EQ(wireless.hosts_paired(), 1u);
  EXPECT_TRUE(fs::exists(keys_.path() / "adbwire_known_hosts")) << "the server's keys, not ~";
}

// The description tools/list gives a tool.
std::string description_of(const Json& listed, const std::string& name) {
  for (const Json& tool : listed)
    if (tool["name"] == name) return tool["description"].get<std::string>();
  return "(no tool " + name + ")";
}

TEST_F(McpTools, ToolsTheDeviceCannotServeAreMarkedInTheList) {
  // Without the dumper: pinch and the clipboard are marked before any device is reached.
  DeviceTools plain(options());
  const Json listed = plain.list();
  for (const char* name : {"pinch", "clipboard_get", "clipboard_set"}) {
    EXPECT_TRUE(description_of(listed, name)
                    .starts_with("Unavailable on the default device: it "
                                 "needs adbwire's on-device dumper"))
        << name << ": " << description_of(listed, name);
  }
  EXPECT_FALSE(description_of(listed, "tap").starts_with("Unavailable")) << "tap always works";
  EXPECT_TRUE(device_.events().empty()) << "listing must not reach the device";

  // With the dumper the tools are offered; once a call shows the device cannot inject
  // touches, pinch is marked again, naming the capability.
  DeviceToolsOptions o = options();
  o.page.helper = PageOptions::Helper::automatic;
  DeviceTools fast(o);
  EXPECT_FALSE(description_of(fast.list(), "pinch").starts_with("Unavailable"));
  device_.set_dumper_fault(DumperFault::refuses_input, 0);
  const Json tapped = call(fast, "tap", {{"x", 100}, {"y", 100}});
  ASSERT_FALSE(tapped["isError"].get<bool>()) << text_of(tapped);
  EXPECT_NE(text_of(tapped).find("through `input` from now on"), std::string::npos)
      << text_of(tapped);
  const Json after = fast.list();
  EXPECT_TRUE(description_of(after, "pinch")
                  .starts_with("Unavailable on the default device: this device lacks multi_touch"))
      << description_of(after, "pinch");
  EXPECT_FALSE(description_of(after, "clipboard_set").starts_with("Unavailable"));
  const Json pinched = call(fast, "pinch", {{"scale", 2}});
  EXPECT_TRUE(pinched["isError"].get<bool>());
  EXPECT_NE(text_of(pinched).find("INJECT_EVENTS"), std::string::npos) << text_of(pinched);
}

TEST_F(McpTools, AppLabelsAreEscapedDeviceText) {
  DeviceToolsOptions o = options();
  o.page.helper = PageOptions::Helper::on;
  DeviceTools tools(o);
  device_.set_app_label("com.example.adbwire.demo",
                        "Demo\x1b[2J\x9b"
                        "31m\u202eevil");
  const Json listed = call(tools, "apps");
  ASSERT_FALSE(listed["isError"].get<bool>()) << text_of(listed);
  const std::string text = text_of(listed);
  EXPECT_NE(text.find("com.example.adbwire.demo \"Demo"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "an escape from the device reached the reply";
  EXPECT_EQ(text.find("\u202e"), std::string::npos) << "a bidi override reached the reply";
  EXPECT_EQ(text.find("Labels"), std::string::npos) << text;

  DeviceTools plain(options());
  const std::string without = text_of(call(plain, "apps"));
  EXPECT_NE(without.find("Labels need the on-device dumper"), std::string::npos) << without;
  EXPECT_NE(without.find("com.example.adbwire.demo\n"), std::string::npos) << without;
}

TEST_F(McpTools, ClickAreaTapsTheCentreOfTheRectangle) {
  DeviceTools tools(options());
  const Json tapped =
      call(tools, "click_area", {{"x1", 100}, {"y1", 200}, {"x2", 300}, {"y2", 400}});
  ASSERT_FALSE(tapped["isError"].get<bool>()) << text_of(tapped);
  EXPECT_NE(text_of(tapped).find("Tapped the centre of the area, (200, 300)"), std::string::npos)
      << text_of(tapped);
  const auto sent = device_.events();
  EXPECT_NE(std::find(sent.begin(), sent.end(), "input tap 200 300"), sent.end());
  const Json normalized =
      call(tools, "click_area",
           {{"x1", 0.25}, {"y1", 0.5}, {"x2", 0.75}, {"y2", 0.5}, {"normalized", true}});
  ASSERT_FALSE(normalized["isError"].get<bool>()) << text_of(normalized);
  const auto after = device_.events();
  EXPECT_NE(std::find(after.begin(), after.end(), "input tap 540 1200"), after.end());
  const std::size_t before = after.size();
  const Json reversed =
      call(tools, "click_area", {{"x1", 300}, {"y1", 200}, {"x2", 100}, {"y2", 400}});
  EXPECT_TRUE(reversed["isError"].get<bool>());
  EXPECT_NE(text_of(reversed).find("x1 <= x2"), std::string::npos) << text_of(reversed);
  EXPECT_EQ(device_.events().size(), before) << "a refused area sent something";
}

TEST_F(McpTools, WaitWithSecondsIsAPlainPause) {
  DeviceTools tools(options());
  const std::size_t before = device_.events().size();
  const auto start = std::chrono::steady_clock::now();
  const Json waited = call(tools, "wait", {{"seconds", 0.2}});
  ASSERT_FALSE(waited["isError"].get<bool>()) << text_of(waited);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
  EXPECT_NE(text_of(waited).find("Waited 0.2 s"), std::string::npos) << text_of(waited);
  EXPECT_EQ(device_.events().size(), before) << "a pause read the screen";
  const Json both = call(tools, "wait", {{"seconds", 1}, {"text", "Milk"}});
  EXPECT_TRUE(both["isError"].get<bool>());
  EXPECT_NE(text_of(both).find("not both"), std::string::npos) << text_of(both);
  const Json too_long = call(tools, "wait", {{"seconds", 601}});
  EXPECT_TRUE(too_long["isError"].get<bool>());
  EXPECT_NE(text_of(too_long).find("between 0 and 600"), std::string::npos) << text_of(too_long);
}

TEST_F(McpTools, AppsListsTheSystemsPackagesOrTheUsersOnly) {
  DeviceTools tools(options());
  const std::string users = text_of(call(tools, "apps", {{"third_party", true}}));
  EXPECT_NE(users.find("1 package the user installed"), std::string::npos) << users;
  EXPECT_NE(users.find("com.example.adbwire.demo\n"), std::string::npos) << users;
  const std::string system = text_of(call(tools, "apps", {{"system", true}}));
  EXPECT_NE(system.find("0 packages of the system image"), std::string::npos) << system;
  const auto sent = device_.events();
  EXPECT_NE(std::find(sent.begin(), sent.end(), "pm list packages -s"), sent.end());
  const Json both = call(tools, "apps", {{"system", true}, {"third_party", true}});
  EXPECT_TRUE(both["isError"].get<bool>());
  EXPECT_NE(text_of(both).find("not both"), std::string::npos) << text_of(both);
}

// The cursor at the end of a followed log's reply.
std::uint64_t cursor_of(const std::string& text) {
  std::smatch match;
  const std::regex cursor("cursor: (\\d+)");
  return std::regex_search(text, match, cursor) ? std::stoull(match[1]) : 0;
}

TEST_F(McpTools, LogsFollowIsACursorThatReturnsOnlyTheLinesAfterIt) {
  device_.log('I', "Before", "an old line");
  DeviceTools tools(options());
  const std::string first = text_of(call(tools, "logs", {{"follow", true}, {"lines", 10}}));
  EXPECT_NE(first.find("Before: an old line"), std::string::npos) << first;
  const std::uint64_t start = cursor_of(first);
  ASSERT_GT(start, 0u) << first;

  device_.log('I', "Follow", "line one");
  device_.log('W', "Follow", "line two");
  std::string next;
  std::uint64_t cursor = start;
  // Each poll waits up to a second for a line; the two may come in one reply or two.
  for (int i = 0; i < 10 && next.find("line two") == std::string::npos; ++i) {
    const std::string text = text_of(call(tools, "logs", {{"follow", true}, {"cursor", cursor}}));
    next += text;
    cursor = cursor_of(text);
  }
  EXPECT_NE(next.find("I Follow: line one"), std::string::npos) << next;
  EXPECT_NE(next.find("W Follow: line two"), std::string::npos) << next;
  EXPECT_EQ(next.find("an old line"), std::string::npos) << "a line before the cursor came again";
  EXPECT_EQ(cursor, start + 2);

  // Nothing new: no lines, the same cursor, after the poll's wait.
  const std::string idle = text_of(call(tools, "logs", {{"follow", true}, {"cursor", cursor}}));
  EXPECT_EQ(cursor_of(idle), cursor) << idle;
  EXPECT_EQ(idle.find("Follow:"), std::string::npos) << idle;

  // More than `lines`: the rest wait for the next call, none is lost or repeated.
  for (int i = 0; i < 25; ++i) device_.log('I', "Many", "line " + std::to_string(i));
  std::string many;
  for (int i = 0; i < 20 && many.find("line 24\n") == std::string::npos; ++i) {
    const std::string text =
        text_of(call(tools, "logs", {{"follow", true}, {"cursor", cursor}, {"lines", 10}}));
    EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 11) << text;
    many += text;
    cursor = cursor_of(text);
  }
  for (int i = 0; i < 25; ++i) {
    const std::string line = "Many: line " + std::to_string(i) + "\n";
    const std::size_t at = many.find(line);
    EXPECT_NE(at, std::string::npos) << line;
    EXPECT_EQ(many.find(line, at + 1), std::string::npos) << "repeated: " << line;
  }

  // A cursor this server never gave, or one without follow, is refused with the way out.
  const Json ahead = call(tools, "logs", {{"follow", true}, {"cursor", cursor + 1000}});
  EXPECT_TRUE(ahead["isError"].get<bool>());
  EXPECT_NE(text_of(ahead).find("leave cursor out"), std::string::npos) << text_of(ahead);
  const Json alone = call(tools, "logs", {{"cursor", cursor}});
  EXPECT_TRUE(alone["isError"].get<bool>());
  EXPECT_NE(text_of(alone).find("give follow too"), std::string::npos) << text_of(alone);
}

TEST_F(McpTools, AFollowedLogKeepsABoundedBufferAndSaysWhatItDropped) {
  DeviceTools tools(options());
  const std::uint64_t start =
      cursor_of(text_of(call(tools, "logs", {{"follow", true}, {"lines", 1}})));
  const std::size_t total = verbs::LogFollow::kMaxRecords + 1000;
  // In batches the virtual device's own ring (4096 records) holds until its logcat sent them.
  for (std::size_t i = 0; i < total; ++i) {
    device_.log('I', "Bulk", "record " + std::to_string(i));
    if (i % 1000 == 999) std::this_thread::sleep_for(300ms);
  }
  // Once more than the buffer holds arrived, the old cursor's lines are partly gone.
  std::string text;
  for (int i = 0; i < 50 && text.find("came and went") == std::string::npos; ++i) {
    text = text_of(call(tools, "logs", {{"follow", true}, {"cursor", start}, {"lines", 1}}));
    if (text.find("came and went") == std::string::npos) std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(text.find("came and went before this call: the buffer keeps the newest 5000"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("Bulk: record 0\n"), std::string::npos) << text;
  EXPECT_GT(cursor_of(text), start + 1);
}

TEST_F(McpTools, TheDeviceArgumentDrivesAnotherDevice) {
  VirtualDevice other(demo());
  other.start();
  DeviceTools tools(options());
  const Json pressed = call(tools, "press", {{"key", "home"}, {"device", other.target()}});
  ASSERT_FALSE(pressed["isError"].get<bool>()) << text_of(pressed);
  ASSERT_FALSE(other.events().empty());
  EXPECT_EQ(other.events().back(), "input keyevent 3");
  EXPECT_TRUE(device_.events().empty());
}

TEST_F(McpTools, StaleOrUnknownRefsAreErrorsThatSayToSnapshotAgain) {
  DeviceTools tools(options());
  const int add = ref_of(text_of(call(tools, "snapshot")), "Add item");
  ASSERT_GT(add, 0);
  ASSERT_FALSE(call(tools, "tap", {{"ref", add}})["isError"].get<bool>());
  // The screen changed: the old ref names an element that is gone.
  const Json stale = call(tools, "tap", {{"ref", add}});
  EXPECT_TRUE(stale["isError"].get<bool>());
  EXPECT_NE(text_of(stale).find("snapshot"), std::string::npos) << text_of(stale);
  const std::size_t taps = device_.events().size();
  const Json unknown = call(tools, "tap", {{"ref", 999}});
  EXPECT_TRUE(unknown["isError"].get<bool>());
  EXPECT_EQ(device_.events().size(), taps);  // nothing was tapped
}

TEST_F(McpTools, WebviewsSaysWhenNothingIsDebuggable) {
  DeviceTools tools(options());
  const Json result = call(tools, "webviews");
  EXPECT_FALSE(result["isError"].get<bool>()) << text_of(result);
  EXPECT_NE(text_of(result).find("No debuggable WebView"), std::string::npos) << text_of(result);
}

TEST_F(McpTools, BadArgumentsNameWhatIsExpected) {
  DeviceTools tools(options());
  const Json result = call(tools, "tap", {{"reff", 1}});
  EXPECT_TRUE(result["isError"].get<bool>());
  EXPECT_NE(text_of(result).find("unknown argument 'reff'"), std::string::npos) << text_of(result);
}

TEST_F(McpTools, WaitGivesUpAtItsTimeout) {
  DeviceTools tools(options());
  const Json found = call(tools, "wait", {{"text", "Add item"}, {"timeout_ms", 5000}});
  EXPECT_FALSE(found["isError"].get<bool>()) << text_of(found);
  const Json missing = call(tools, "wait", {{"text", "Never shown"}, {"timeout_ms", 400}});
  EXPECT_TRUE(missing["isError"].get<bool>());
  EXPECT_NE(text_of(missing).find("Never shown"), std::string::npos) << text_of(missing);
}

TEST_F(McpTools, ALostDeviceIsReportedAndTheNextCallReconnects) {
  DeviceTools tools(options());
  ASSERT_FALSE(call(tools, "snapshot")["isError"].get<bool>());
  device_.stop();
  const Json lost = call(tools, "press", {{"key", "back"}});
  EXPECT_TRUE(lost["isError"].get<bool>());
  EXPECT_NE(text_of(lost).find("connect"), std::string::npos) << text_of(lost);
}

// The path a reply gives for a file it saved ("… to /path/name.ext.").
std::string saved_path(const std::string& text, const std::string& extension) {
  std::smatch match;
  const std::regex path("(/\\S+\\" + extension + ")");
  return std::regex_search(text, match, path) ? match[1].str() : std::string();
}

std::uint32_t be32(const std::string& bytes, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
}

// Checks the virtual device's MP4 (screenrecord_command.cpp: ftyp, mdat of 1024-byte frames
// filled with i % 251, moov) byte for byte and returns its frame count.
std::size_t check_movie(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 48U);
  if (bytes.size() < 48) return 0;
  EXPECT_EQ(bytes.substr(4, 8), "ftypmp42");
  EXPECT_EQ(be32(bytes, 0), 24U);
  const std::uint32_t mdat = be32(bytes, 24);
  EXPECT_EQ(bytes.substr(28, 4), "mdat");
  EXPECT_EQ((mdat - 8) % 1024, 0U);
  const std::size_t frames = (mdat - 8) / 1024;
  EXPECT_EQ(bytes.size(), 24U + mdat + 16U);
  if (bytes.size() != 24U + mdat + 16U) return 0;
  for (std::size_t i = 0; i < frames; ++i) {
    const std::size_t at = 32 + i * 1024;
    if (bytes.find_first_not_of(static_cast<char>(i % 251), at) < at + 1024) {
      ADD_FAILURE() << "frame " << i << " arrived changed";
      break;
    }
  }
  EXPECT_EQ(bytes.substr(24 + mdat + 4, 4), "moov");
  return frames;
}

std::vector<fs::path> recordings_on(const VirtualDevice& device) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(device.root() / "data/local/tmp", error)) {
    if (entry.path().filename().string().starts_with("adbwire-screenrecord-"))
      found.push_back(entry.path());
  }
  return found;
}

// A recording started in one call and stopped in another: screenrecord runs on the device
// meanwhile, is interrupted as Ctrl-C does (so it writes the MP4's index), and its bytes arrive
// intact in a private file; the device's copy is removed.
TEST_F(McpTools, AScreenRecordingArrivesIntactAndLeavesNothingOnTheDevice) {
  DeviceTools tools(options());
  const Json started = call(tools, "record_start", {{"time_limit_s", 30}, {"bit_rate_mbps", 2}});
  ASSERT_FALSE(started["isError"].get<bool>()) << text_of(started);
  const Json again = call(tools, "record_start");
  EXPECT_TRUE(again["isError"].get<bool>());
  EXPECT_NE(text_of(again).find("already running"), std::string::npos) << text_of(again);
  std::this_thread::sleep_for(450ms);
  const Json stopped = call(tools, "record_stop");
  ASSERT_FALSE(stopped["isError"].get<bool>()) << text_of(stopped);
  const std::string path = saved_path(text_of(stopped), ".mp4");
  ASSERT_FALSE(path.empty()) << text_of(stopped);
  struct stat info {};
  ASSERT_EQ(::stat(fs::path(path).parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_GE(check_movie(bytes), 3U) << "about 450 ms at one frame per 100 ms";
  EXPECT_TRUE(recordings_on(device_).empty());

  const std::vector<std::string> events = device_.events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const std::string& e) {
    return e.starts_with("screenrecord --time-limit 30 --bit-rate 2000000 /data/local/tmp/");
  }));
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const std::string& e) {
    return e.starts_with("pkill -INT -f adbwire-screenrecor[d]-");
  }));
  const Json none = call(tools, "record_stop");
  EXPECT_TRUE(none["isError"].get<bool>());
  EXPECT_NE(text_of(none).find("record_start"), std::string::npos) << text_of(none);
}

// A recording that reached its time limit is saved whole when record_stop comes later.
TEST_F(McpTools, ARecordingEndsAtItsTimeLimit) {
  DeviceTools tools(options());
  ASSERT_FALSE(call(tools, "record_start", {{"time_limit_s", 1}})["isError"].get<bool>());
  std::this_thread::sleep_for(1500ms);
  const Json stopped = call(tools, "record_stop");
  ASSERT_FALSE(stopped["isError"].get<bool>()) << text_of(stopped);
  std::ifstream in(saved_path(text_of(stopped), ".mp4"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(check_movie(bytes), 10U) << "1 s at one frame per 100 ms";
  const std::vector<std::string> events = device_.events();
  EXPECT_FALSE(std::any_of(events.begin(), events.end(), [](const std::string& e) {
    return e.starts_with("pkill -INT");
  })) << "nothing to interrupt";
  EXPECT_TRUE(recordings_on(device_).empty());
}

// A stop that comes before screenrecord even runs on the device (the start only asked for it)
// still ends it: the interrupt is sent again until it reaches the process.
TEST_F(McpTools, AStopRightAfterTheStartStillEndsTheRecording) {
  DeviceTools tools(options());
  for (int i = 0; i < 5; ++i) {
    ASSERT_FALSE(call(tools, "record_start", {{"time_limit_s", 60}})["isError"].get<bool>());
    const auto start = std::chrono::steady_clock::now();
    const Json stopped = call(tools, "record_stop");
    ASSERT_FALSE(stopped["isError"].get<bool>()) << text_of(stopped);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s) << "waited for the time limit";
    std::ifstream in(saved_path(text_of(stopped), ".mp4"), std::ios::binary);
    EXPECT_GE(check_movie(std::string((std::istreambuf_iterator<char>(in)), {})), 1U);
  }
  EXPECT_TRUE(recordings_on(device_).empty());
}

}  // namespace
}  // namespace adbwire::mcp
