// The CLI session, a service of the daemon: `adbwire open` once, then
// snapshot/tap/type/press/screenshot as separate processes that reuse the daemon's one connection
// (the virtual device counts them).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/shell_quote.hpp"
#include "verbs/verb.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

using detail::shell_quote;

struct CliResult {
  int exit_code = -1;
  std::string out;
};

// A folder to run the CLI in, with its own runtime folder and the daemon's socket at a path of its
// own ($ADBWIRE_SESSION); ends the daemon at the end.
class SessionDir {
 public:
  SessionDir() {
    std::random_device random;
    path_ = fs::temp_directory_path() / ("adbwire-session-test-" + std::to_string(random()));
    fs::create_directories(path_ / "run");
  }
  ~SessionDir() {
    run({"kill-server"});
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  fs::path socket() const { return path_ / "session.sock"; }

  // Runs `adbwire args…` in the folder; stdout is returned, stderr appended after it.
  CliResult run(const std::vector<std::string>& args) const { return run_with_env(env(), args); }
  // The folder's environment (for env(1)).
  std::string env() const {
    return "ADBWIRE_SESSION=" + shell_quote(socket().string()) +
           " XDG_RUNTIME_DIR=" + shell_quote((path_ / "run").string());
  }

  // Whether a session is open (`adbwire sessions` lists one).
  bool session_open() const {
    return run({"sessions"}).out.find("no session is open") == std::string::npos;
  }

  // The same with env ("NAME=value …" for env(1)) instead of the private socket.
  CliResult run_with_env(const std::string& env, const std::vector<std::string>& args) const {
    return run_program(ADBWIRE_CLI_PATH, env, args);
  }

  // The same with another program.
  CliResult run_program(const fs::path& program, const std::string& env,
                        const std::vector<std::string>& args) const {
    std::string command = "cd " + shell_quote(path_.string()) + " && env " + env + " " +
                          shell_quote(program.string());
    for (const std::string& arg : args) command += " " + shell_quote(arg);
    command += " 2>&1";
    CliResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

 private:
  fs::path path_;
};

// The demo app's screen graph: a list, an add form, details.
VirtualDeviceOptions demo_screens() {
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  return options;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(SessionCli, CommandsReuseOneConnectionAndWriteFilesUnderDotAdbwire) {
  VirtualDevice vd(demo_screens());
  vd.start();
  SessionDir dir;

  const CliResult opened = dir.run({"open", vd.target()});
  ASSERT_EQ(opened.exit_code, 0) << opened.out;
  struct stat info {};
  ASSERT_EQ(::stat(dir.socket().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);

  const CliResult list = dir.run({"snapshot"});
  ASSERT_EQ(list.exit_code, 0) << list.out;
  const fs::path list_file = first_line(list.out);
  EXPECT_EQ(list_file.parent_path(), dir.path() / ".adbwire");
  EXPECT_NE(read_file(list_file).find("Button [ref=5] \"Add item\""), std::string::npos)
      << read_file(list_file);

  EXPECT_EQ(dir.run({"tap", "5"}).exit_code, 0);
  const CliResult form = dir.run({"snapshot", "--print"});
  EXPECT_NE(form.out.find("TextInput [ref=2] \"\""), std::string::npos) << form.out;

  const std::string text = "two \"green\" apples; $HOME & `id` 100%s";
  const CliResult typed = dir.run({"type", "2", text});
  EXPECT_EQ(typed.exit_code, 0) << typed.out;
  const CliResult filled = dir.run({"snapshot", "--print"});
  EXPECT_NE(filled.out.find("TextInput [ref=2] \"two \\\"green\\\" apples; $HOME & `id` 100%s\""),
            std::string::npos)
      << filled.out;

  EXPECT_EQ(dir.run({"press", "back"}).exit_code, 0);
  const CliResult stale = dir.run({"tap", "3"});  // the form's ref, the list is back
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_NE(stale.out.find("stale ref"), std::string::npos) << stale.out;

  const CliResult shot = dir.run({"screenshot"});
  ASSERT_EQ(shot.exit_code, 0) << shot.out;
  EXPECT_EQ(read_file(first_line(shot.out)).substr(0, 8), "\x89PNG\r\n\x1a\n");
  const CliResult jpeg = dir.run({"screenshot", "--jpeg=60", "--max-side", "800"});
  ASSERT_EQ(jpeg.exit_code, 0) << jpeg.out;
  EXPECT_TRUE(first_line(jpeg.out).ends_with(".jpg")) << jpeg.out;
  EXPECT_EQ(read_file(first_line(jpeg.out)).substr(0, 3), "\xff\xd8\xff");  // JPEG SOI

  EXPECT_EQ(dir.run({"launch", "com.android.settings"}).exit_code, 0);
  EXPECT_EQ(vd.events().back(),
            "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1");

  EXPECT_EQ(vd.connections_accepted(), 1U);
  EXPECT_EQ(dir.run({"close"}).exit_code, 0);
  EXPECT_FALSE(dir.session_open());
  EXPECT_NE(dir.run({"tap", "5"}).out.find("adbwire open"), std::string::npos);
}

// The ref the printed snapshot gives the first element with this label ("List"), "" if none.
std::string ref_of(const std::string& snapshot, const std::string& label) {
  const std::size_t at = snapshot.find("- " + label + " [ref=");
  if (at == std::string::npos) return {};
  const std::size_t start = at + label.size() + 8;
  return snapshot.substr(start, snapshot.find(']', start) - start);
}

// scroll goes through the session like tap and press: the daemon's Page swipes inside the
// list (sample screen: [0,832][1080,2337], centre (540,1584)) with the finger moving up, so
// content below comes into view.
// The working folder may be shared: a link planted as .adbwire or as a snapshot's name is never
// written through, and the files are the user's alone.
TEST(SessionCli, SavedFilesArePrivateAndNeverFollowAPlantedLink) {
  VirtualDevice vd(demo_screens());
  vd.start();
  SessionDir dir;
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / ".adbwire");
  ASSERT_EQ(dir.run({"open", vd.target()}).exit_code, 0);

  const CliResult refused = dir.run({"snapshot"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("is a symbolic link"), std::string::npos) << refused.out;
  EXPECT_TRUE(fs::is_empty(dir.path() / "elsewhere"));

  fs::remove(dir.path() / ".adbwire");
  fs::create_directories(dir.path() / ".adbwire");
  { std::ofstream(dir.path() / "victim.txt") << "victim\n"; }
  fs::create_symlink(dir.path() / "victim.txt", dir.path() / ".adbwire/snapshot-2.yml");
  const CliResult saved = dir.run({"snapshot"});
  ASSERT_EQ(saved.exit_code, 0) << saved.out;
  EXPECT_EQ(first_line(saved.out), (dir.path() / ".adbwire/snapshot-2.yml").string());
  EXPECT_EQ(read_file(dir.path() / "victim.txt"), "victim\n");
  struct stat st {};
  ASSERT_EQ(::lstat((dir.path() / ".adbwire/snapshot-2.yml").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(SessionCli, ScrollDownSwipesUpInsideTheList) {
  VirtualDevice vd;
  vd.start();
  SessionDir dir;
  ASSERT_EQ(dir.run({"open", vd.target()}).exit_code, 0);
  const CliResult shown = dir.run({"snapshot", "--print"});
  ASSERT_EQ(shown.exit_code, 0) << shown.out;
  const std::string list = ref_of(shown.out, "List");
  ASSERT_FALSE(list.empty()) << shown.out;

  const CliResult scrolled = dir.run({"scroll", list, "down"});
  EXPECT_EQ(scrolled.exit_code, 0) << scrolled.out;
  ASSERT_FALSE(vd.events().empty());
  EXPECT_EQ(vd.events().back(), "input swipe 540 1584 540 1083 300");

  const CliResult bad = dir.run({"scroll", list, "sideways"});
  EXPECT_NE(bad.exit_code, 0) << bad.out;
  EXPECT_EQ(vd.events().back(), "input swipe 540 1584 540 1083 300");  // nothing more sent
  EXPECT_EQ(vd.connections_accepted(), 1U);
}

// The session is where the on-device dumper pays off: one process serves every snapshot. A
// fallback is said once, on the CLI's stderr.
TEST(SessionCli, HelperServesEverySnapshotAndAFallbackIsSaidOnce) {
  VirtualDevice vd;
  vd.start();
  SessionDir dir;
  ASSERT_EQ(dir.run({"open", vd.target(), "--helper", "auto"}).exit_code, 0);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(dir.run({"snapshot", "--print"}).exit_code, 0);
  const auto dumper_starts = [&vd] {
    const auto events = vd.events();
    return std::count_if(events.begin(), events.end(),
                         [](const std::string& e) { return e.starts_with("app_process "); });
  };
  EXPECT_EQ(dumper_starts(), 1);
  // The running dumper dies at its next dump (killed), and its replacement at its first
  // (die_after 0): automatic mode falls back to uiautomator dump.
  vd.set_dumper_fault(DumperFault::die_after, 0);
  vd.set_ui_dump_fault(UiDumpFault::killed, 1);
  const CliResult fell_back = dir.run({"snapshot", "--print"});
  EXPECT_EQ(fell_back.exit_code, 0) << fell_back.out;
  EXPECT_NE(fell_back.out.find("adbwire: "), std::string::npos) << fell_back.out;
  EXPECT_NE(fell_back.out.find("--helper"), std::string::npos)
      << fell_back.out;  // how to turn it off
  const CliResult after = dir.run({"snapshot", "--print"});
  EXPECT_EQ(after.exit_code, 0);
  EXPECT_EQ(after.out.find("adbwire: "), std::string::npos) << after.out;  // said once
  EXPECT_EQ(dir.run({"close"}).exit_code, 0);
  EXPECT_EQ(vd.connections_accepted(), 1U);
}

TEST(SessionCli, EndsItselfAfterTheIdleTime) {
  VirtualDevice vd;
  vd.start();
  SessionDir dir;
  const CliResult opened = dir.run({"open", vd.target(), "--idle", "1"});
  ASSERT_EQ(opened.exit_code, 0) << opened.out;
  ASSERT_TRUE(dir.session_open());
  // Generous bound: the session is only asked to be gone, never how fast.
  for (int i = 0; i < 150 && dir.session_open(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_FALSE(dir.session_open());
  const CliResult after = dir.run({"snapshot"});
  EXPECT_EQ(after.exit_code, 1);
  EXPECT_NE(after.out.find("adbwire open"), std::string::npos) << after.out;
  EXPECT_EQ(vd.connections_accepted(), 1U);
}

TEST(SessionCli, DefaultSocketLivesInAFolderOnlyItsUserCanEnter) {
  VirtualDevice vd;
  vd.start();
  SessionDir dir;
  const fs::path runtime = dir.path() / "run";
  fs::create_directories(runtime);
  const std::string env = "-u ADBWIRE_SESSION XDG_RUNTIME_DIR=" + shell_quote(runtime.string());
  const CliResult opened = dir.run_with_env(env, {"open", vd.target()});
  ASSERT_EQ(opened.exit_code, 0) << opened.out;
  fs::path socket;
  for (const auto& entry : fs::directory_iterator(runtime / "adbwire")) {
    if (entry.path().extension() == ".sock") socket = entry.path();
  }
  ASSERT_EQ(socket.extension(), ".sock") << "the daemon's socket";
  EXPECT_NE(opened.out.find(socket.string()), std::string::npos) << opened.out;
  struct stat info {};
  ASSERT_EQ(::stat(socket.parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  ASSERT_EQ(::stat(socket.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  EXPECT_EQ(dir.run_with_env(env, {"press", "back"}).exit_code, 0);
  EXPECT_EQ(dir.run_with_env(env, {"close"}).exit_code, 0);

  // A folder others can read is refused rather than used.
  ASSERT_EQ(::chmod(socket.parent_path().c_str(), 0755), 0);
  const CliResult refused = dir.run_with_env(env, {"open", vd.target()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("mode 0700"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("XDG_RUNTIME_DIR"), std::string::npos) << refused.out;
  ASSERT_EQ(::chmod(socket.parent_path().c_str(), 0700), 0);
  EXPECT_EQ(dir.run_with_env(env, {"kill-server"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(socket));
}

TEST(SessionCli, WithoutASessionCommandsSayHowToStartOne) {
  SessionDir dir;
  const CliResult result = dir.run({"tap", "1"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("adbwire open"), std::string::npos) << result.out;
}

TEST(SessionCli, OpenReportsAnUnreachableDevice) {
  SessionDir dir;
  const CliResult result = dir.run({"open", "tcp:127.0.0.1:1"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("refused"), std::string::npos) << result.out;
  EXPECT_FALSE(dir.session_open());
}

TEST(SessionCli, SnapshotWithATargetPrintsTheScreenDirectly) {
  VirtualDevice vd;
  vd.start();
  SessionDir dir;
  const CliResult result = dir.run({"-s", vd.target(), "snapshot"});
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_NE(result.out.find("Button [ref="), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(dir.path() / ".adbwire"));
}

// Named sessions live in the private runtime folder: a test gives each its own.
class NamedSessions {
 public:
  explicit NamedSessions(const SessionDir& dir) : dir_(dir), runtime_(dir.path() / "run") {
    fs::create_directories(runtime_);
    fs::permissions(runtime_, fs::perms::owner_all);
  }
  ~NamedSessions() { plain({"kill-server"}); }
  CliResult open(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> all = {"open", "--session", name};
    all.insert(all.end(), args.begin(), args.end());
    const CliResult result = dir_.run_with_env(env(), all);
    if (result.exit_code == 0) opened_.push_back(name);
    return result;
  }
  // `adbwire --session NAME args…`.
  CliResult run(const std::string& name, const std::vector<std::string>& args) const {
    std::vector<std::string> all = {"--session", name};
    all.insert(all.end(), args.begin(), args.end());
    return dir_.run_with_env(env(), all);
  }
  CliResult plain(const std::vector<std::string>& args) const {
    return dir_.run_with_env(env(), args);
  }

 private:
  std::string env() const {
    return "-u ADBWIRE_SESSION -u ANDROID_SERIAL -u ADB_SERIAL XDG_RUNTIME_DIR=" +
           shell_quote(runtime_.string());
  }
  const SessionDir& dir_;
  fs::path runtime_;
  std::vector<std::string> opened_;
};

std::size_t count_events(const VirtualDevice& vd, const std::string& event) {
  const std::vector<std::string> events = vd.events();
  return static_cast<std::size_t>(std::count(events.begin(), events.end(), event));
}

// Two demo devices, session a open on the first and b on the second, in one folder.
class SessionCliTwoDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    first.start();
    second.start();
    const CliResult a = sessions.open("a", {first.target()});
    ASSERT_EQ(a.exit_code, 0) << a.out;
    const CliResult b = sessions.open("b", {second.target()});
    ASSERT_EQ(b.exit_code, 0) << b.out;
  }
  VirtualDevice first{demo_screens()};
  VirtualDevice second{demo_screens()};
  SessionDir dir;
  NamedSessions sessions{dir};
};

// Two agents, two devices: each named session drives its own device and neither sees the
// other's calls; a second open of a name is refused and the first session keeps working.
TEST_F(SessionCliTwoDevices, TwoNamedSessionsDriveTwoDevicesSideBySide) {
  const CliResult again = sessions.open("a", {second.target()});
  EXPECT_EQ(again.exit_code, 1) << again.out;
  EXPECT_NE(again.out.find("already open"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find(first.target()), std::string::npos) << again.out;  // says on what

  EXPECT_EQ(sessions.run("a", {"tap", "--text", "Add item"}).exit_code, 0);
  EXPECT_EQ(sessions.run("b", {"press", "back"}).exit_code, 0);
  EXPECT_EQ(count_events(first, "input tap 540 2227"), 1U);
  EXPECT_EQ(count_events(second, "input tap 540 2227"), 0U);
  EXPECT_EQ(count_events(second, "input keyevent 4"), 1U);
  EXPECT_EQ(count_events(first, "input keyevent 4"), 0U);
  const CliResult form = sessions.run("a", {"snapshot", "--print"});
  EXPECT_NE(form.out.find("\"New item\""), std::string::npos) << form.out;
  const CliResult list = sessions.run("b", {"snapshot", "--print"});
  EXPECT_NE(list.out.find("\"Add item\""), std::string::npos) << list.out;

  const CliResult listed = sessions.plain({"sessions"});
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  EXPECT_NE(listed.out.find("a " + first.target()), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("b " + second.target()), std::string::npos) << listed.out;

  // With two open, a call naming none cannot guess.
  const CliResult unnamed = sessions.plain({"press", "home"});
  EXPECT_EQ(unnamed.exit_code, 1) << unnamed.out;
  EXPECT_NE(unnamed.out.find("--session"), std::string::npos) << unnamed.out;

  EXPECT_EQ(first.connections_accepted(), 1U);
  EXPECT_EQ(second.connections_accepted(), 1U);
}

// Two sessions in one working folder on two devices: each writes its files where the other
// does not, and a path once printed keeps its content (a file already there, another session's
// or an earlier run's, is never overwritten).
TEST_F(SessionCliTwoDevices, TwoSessionsInOneFolderNeverWriteEachOthersFiles) {
  ASSERT_EQ(sessions.run("b", {"tap", "--text", "Add item"}).exit_code, 0);  // b shows the form

  const CliResult a = sessions.run("a", {"snapshot"});
  const CliResult b = sessions.run("b", {"snapshot"});
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  const fs::path a_file = first_line(a.out);
  const fs::path b_file = first_line(b.out);
  EXPECT_EQ(a_file.parent_path(), dir.path() / ".adbwire" / "session-a");
  EXPECT_EQ(b_file.parent_path(), dir.path() / ".adbwire" / "session-b");
  const std::string a_text = read_file(a_file);
  EXPECT_NE(a_text.find("\"Add item\""), std::string::npos) << a_text;
  EXPECT_NE(read_file(b_file).find("\"New item\""), std::string::npos) << read_file(b_file);
  const CliResult a_shot = sessions.run("a", {"screenshot"});
  const CliResult b_shot = sessions.run("b", {"screenshot"});
  EXPECT_NE(first_line(a_shot.out), first_line(b_shot.out));

  // Session a again under the same name, later: its first path stays the first run's screen.
  ASSERT_EQ(sessions.run("a", {"close"}).exit_code, 0);
  ASSERT_EQ(sessions.open("a", {second.target()}).exit_code, 0);
  const CliResult again = sessions.run("a", {"snapshot"});
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(fs::path(first_line(again.out)), a_file);
  EXPECT_EQ(read_file(a_file), a_text);
  EXPECT_NE(read_file(first_line(again.out)).find("\"New item\""), std::string::npos);
}

// A phone that reboots, an emulator restarted on its port: the session's next call reconnects
// and says so, instead of answering "device offline" until close and open.
TEST(SessionCli, ASessionReconnectsAfterItsDeviceRestartsOnTheSamePort) {
  VirtualDeviceOptions options = demo_screens();
  auto device = std::make_unique<VirtualDevice>(options);
  device->start();
  SessionDir dir;
  NamedSessions sessions(dir);
  const std::string target = device->target();
  ASSERT_EQ(sessions.open("phone", {target}).exit_code, 0);
  ASSERT_EQ(sessions.run("phone", {"snapshot", "--print"}).exit_code, 0);

  options.port = device->port();
  device->stop();
  device.reset();
  const CliResult lost = sessions.run("phone", {"press", "back"});
  EXPECT_NE(lost.exit_code, 0) << lost.out;  // nothing listens: said, not hung
  device = std::make_unique<VirtualDevice>(options);
  device->start();
  ASSERT_EQ(device->target(), target);

  const CliResult back = sessions.run("phone", {"snapshot", "--print"});
  EXPECT_EQ(back.exit_code, 0) << back.out;
  EXPECT_NE(back.out.find("adbwire: reconnected to " + target), std::string::npos) << back.out;
  EXPECT_NE(back.out.find("\"Add item\""), std::string::npos) << back.out;
  EXPECT_EQ(sessions.run("phone", {"tap", "5"}).exit_code, 0);
  EXPECT_EQ(count_events(*device, "input tap 540 2227"), 1U);
  EXPECT_EQ(device->connections_accepted(), 1U);
}

// An agent's step costs a process start: the lean front serves the session verbs itself (a
// front with no adbwire-full beside it still taps, in the daemon $ADBWIRE_SESSION names: without
// the full program's file it cannot tell which daemon is its own), and hands everything else over.
TEST(SessionCli, TheFrontServesSessionVerbsWithoutTheFullProgram) {
  VirtualDevice vd(demo_screens());
  vd.start();
  SessionDir dir;
  ASSERT_EQ(dir.run({"open", "--session", "front", vd.target()}).exit_code, 0);
  ASSERT_EQ(dir.run({"--session", "front", "snapshot"}).exit_code, 0);
  const fs::path lone = dir.path() / "lone" / "adbwire";
  fs::create_directories(lone.parent_path());
  fs::copy_file(ADBWIRE_CLI_PATH, lone);
  const auto run_lone = [&](const std::vector<std::string>& args) {
    return dir.run_program(lone, dir.env(), args);
  };

  const CliResult tapped = run_lone({"--session", "front", "tap", "5"});
  EXPECT_EQ(tapped.exit_code, 0) << tapped.out;
  EXPECT_EQ(count_events(vd, "input tap 540 2227"), 1U);
  const CliResult typed =
      run_lone({"--session", "front", "type", "--id", "name", "--text", "pears"});
  EXPECT_EQ(typed.exit_code, 0) << typed.out;
  const CliResult bad = run_lone({"--session", "front", "scroll", "2", "aside"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("direction"), std::string::npos) << bad.out;
  const CliResult missing = run_lone({"--session", "nobody", "tap", "1"});
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.out.find("adbwire open --session nobody"), std::string::npos) << missing.out;

  const CliResult snapshot = run_lone({"--session", "front", "snapshot", "-p"});
  EXPECT_EQ(snapshot.exit_code, 0) << snapshot.out;
  EXPECT_NE(snapshot.out.find(".adbwire/session-front/snapshot-"), std::string::npos)
      << snapshot.out;
  EXPECT_NE(snapshot.out.find("TextInput [ref="), std::string::npos) << snapshot.out;

  // What the front does not serve needs the full program, which this copy does not have.
  const CliResult other = run_lone({"--session", "front", "screenshot"});
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.out.find("cannot find adbwire-full"), std::string::npos) << other.out;
}

// `open --memory-db FILE --observe`: the session's verbs keep notes and the observation cache
// in that file (a relative name from the folder open ran in), and $ADBWIRE_MEMORY_DB of the
// open names another session's: the daemon's own environment decides nothing.
TEST(SessionCli, OpenTakesTheMemoryDatabaseAndObserves) {
  VirtualDevice vd(demo_screens());
  vd.start();
  SessionDir dir;
  NamedSessions sessions(dir);
  ASSERT_EQ(
      sessions.open("mem", {vd.target(), "--memory-db", "notes/memory.db", "--observe"}).exit_code,
      0);
  for (const std::vector<std::string>& step :
       std::vector<std::vector<std::string>>{{"snapshot"},
                                             {"tap", "--text", "Add item"},
                                             {"snapshot"},
                                             {"tap", "--x", "60", "--y", "200"},
                                             {"snapshot"},
                                             {"remember", "the list is the start screen"}}) {
    const CliResult result = sessions.run("mem", step);
    ASSERT_EQ(result.exit_code, 0) << step[0] << ": " << result.out;
  }
  const CliResult seen = sessions.run("mem", {"observations"});
  EXPECT_EQ(seen.exit_code, 0) << seen.out;
  // Two snapshots, and the one tap took to find "Add item" on it.
  EXPECT_NE(seen.out.find("seen 3 times"), std::string::npos) << seen.out;
  EXPECT_NE(seen.out.find("tap {\"text\":\"Add item\"} -> screen "), std::string::npos) << seen.out;
  const fs::path db = dir.path() / "notes" / "memory.db";
  struct stat st {};
  ASSERT_EQ(::stat(db.c_str(), &st), 0) << db;
  EXPECT_EQ(st.st_mode & 0777, 0600U);

  const CliResult opened =
      dir.run_with_env("-u ADBWIRE_SESSION ADBWIRE_MEMORY_DB=other.db XDG_RUNTIME_DIR=" +
                           shell_quote((dir.path() / "run").string()),
                       {"open", "--session", "envdb", vd.target()});
  ASSERT_EQ(opened.exit_code, 0) << opened.out;
  EXPECT_NE(sessions.run("envdb", {"recall"}).out.find("Nothing remembered"), std::string::npos);
  ASSERT_EQ(sessions.run("envdb", {"remember", "kept elsewhere"}).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir.path() / "other.db"));
  EXPECT_NE(sessions.run("envdb", {"observations"}).out.find("The observation cache is off"),
            std::string::npos);
  const CliResult first = sessions.run("mem", {"recall"});
  EXPECT_NE(first.out.find("the list is the start screen"), std::string::npos) << first.out;
  EXPECT_EQ(first.out.find("kept elsewhere"), std::string::npos) << first.out;
  ASSERT_EQ(sessions.run("envdb", {"close"}).exit_code, 0);
}

// The CLI's camera saves the photo itself, as the camera wrote it, under .adbwire: byte for byte
// the file on the device, with no copy left in the session's private folder.
TEST(SessionCli, CameraSavesTheFullPhotoUnderDotAdbwire) {
  VirtualDevice vd(demo_screens());
  vd.start();
  SessionDir dir;
  ASSERT_EQ(dir.run({"open", vd.target()}).exit_code, 0);
  const CliResult shot = dir.run({"camera"});
  ASSERT_EQ(shot.exit_code, 0) << shot.out;
  const fs::path saved = first_line(shot.out);
  EXPECT_EQ(saved, dir.path() / ".adbwire" / "camera-1.jpg") << shot.out;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      shot.out, match,
      std::regex("Took a photo: (/sdcard/DCIM/Camera/IMG_\\d{8}_\\d{6}(_1)?\\.jpg) on the device "
                 "\\(\\d+ KiB\\)\\.")))
      << shot.out;
  EXPECT_EQ(shot.out.find("saved to"), std::string::npos) << shot.out;
  const std::string remote = match[1];
  const fs::path pulled = dir.path() / "pulled.jpg";
  const CliResult pull = dir.run({"-s", vd.target(), "pull", remote, pulled.string()});
  ASSERT_EQ(pull.exit_code, 0) << pull.out;
  const std::string photo = read_file(saved);
  EXPECT_TRUE(photo.starts_with("\xff\xd8\xff"));
  EXPECT_EQ(photo, read_file(pulled));
  for (const auto& entry : fs::recursive_directory_iterator(dir.path() / "run")) {
    EXPECT_EQ(entry.path().filename().string().find("photo"), std::string::npos) << entry.path();
  }
}

// One case per verb of the table: what the CLI runs and what its reply says.
struct VerbCase {
  std::string verb;               // the verb this case covers
  std::vector<std::string> args;  // after `adbwire --session NAME` (or with -s TARGET)
  std::string expect;             // in the output
  std::string event = {};         // the device ran this, when it runs one
  bool one_shot = false;          // a one-shot command of adb's (-s TARGET), not a session verb
};

// Every verb of the table runs from the CLI, in the order an agent would use them on the demo
// app, checked by its output and by what the device ran. A verb added to the table without a
// case here fails the test.
TEST(SessionCli, EveryVerbOfTheTableRunsFromTheCli) {
  VirtualDeviceOptions options = demo_screens();
  // An app installed from a real APK, for launch by its label.
  options.apps = {{"com.example.groceries", 7, "Demo Groceries",
                   fs::path(ADBWIRE_TEST_APK_DIR) / "groceries.apk"}};
  VirtualDevice vd(options);
  vd.start();
  SessionDir dir;
  NamedSessions sessions(dir);
  const fs::path apk = dir.path() / "app.apk";
  std::ofstream(apk) << "PK package=com.example.app versionCode=3 (the virtual device reads these)";
  ASSERT_EQ(sessions.open("agent", {vd.target(), "--helper", "on"}).exit_code, 0);
  // A phone whose pairing dialog is open, for the pair verb (adbwire pair, adb's command).
  VirtualDeviceOptions wireless;
  wireless.tls = true;
  wireless.keys_file = dir.path() / "paired_keys";
  wireless.pairing_code = "482915";
  VirtualDevice phone(wireless);
  phone.start();
  const std::string pairing = "127.0.0.1:" + std::to_string(phone.pairing_port());

  const std::vector<VerbCase> cases = {
      {"snapshot", {"snapshot", "--print"}, "Button [ref=5] \"Add item\""},
      {"find", {"find", "Groceries"}, "1 match"},
      {"wait", {"wait", "--text", "Groceries", "--timeout-ms", "5000"}, "is there"},
      {"wait", {"wait", "--seconds", "0.2"}, "Waited 0.2 s"},
      {"screenshot", {"screenshot"}, ".png"},
      {"page_source", {"page_source"}, "page-source"},
      {"record_start", {"record_start", "30"}, "Recording the screen"},
      {"record_stop", {"record_stop"}, "Saved the screen recording"},
      {"webviews", {"webviews"}, "no debuggable WebView", {}, true},
      {"long_press",
       {"long_press", "5"},
       "Long-pressed ref 5",
       "dumper touch 1 finger 1000 ms: 540,2227 -> 540,2227"},
      {"scroll", {"scroll", "1", "down"}, "croll"},
      {"tap",
       {"tap", "--text", "Add item"},
       "Add item",
       "dumper touch 1 finger 0 ms: 540,2227 -> 540,2227"},
      {"type", {"type", "--text", "pears", "--id", "name"}, "pears"},
      {"back", {"back"}, "Pressed back", "input keyevent 4"},
      {"swipe",
       {"swipe", "100", "800", "100", "200"},
       "wipe",
       "dumper touch 1 finger 300 ms: 100,800 -> 100,200"},
      {"pinch",
       {"pinch", "2", "--x", "540", "--y", "1200"},
       "zoom in",
       "dumper touch 2 fingers 300 ms: 324,1200 -> 108,1200; 756,1200 -> 972,1200"},
      {"gesture",
       {"gesture", "100,900 100,300; 300,900 300,300"},
       "2-finger gesture",
       "dumper touch 2 fingers 300 ms: 100,900 -> 100,300; 300,900 -> 300,300"},
      {"drag",
       {"drag", "--from-x", "100", "--from-y", "800", "--to-x", "300", "--to-y", "900"},
       "rag"},
      {"press", {"press", "66"}, "Pressed 66", "input keyevent 66"},
      {"record_trajectory_start", {"record_trajectory_start"}, "Recording a trajectory to"},
      {"home", {"home"}, "Pressed home", "input keyevent 3"},
      {"record_trajectory_stop", {"record_trajectory_stop"}, "Saved the trajectory (1 step)"},
      {"replay_trajectory", {"replay_trajectory"}, "Replayed 1 action", "input keyevent 3"},
      {"click_area",
       {"click_area", "100", "200", "300", "400"},
       "centre of the area",
       "dumper touch 1 finger 0 ms: 200,300 -> 200,300"},
      {"recent", {"recent"}, "recent apps", "input keyevent 187"},
      {"launch",
       {"launch", "com.example.adbwire.demo"},
       "Launched",
       "monkey -p com.example.adbwire.demo -c android.intent.category.LAUNCHER 1"},
      {"launch",
       {"launch", "Demo Groceries"},
       "Launched Demo Groceries (com.example.groceries)",
       "monkey -p com.example.groceries -c android.intent.category.LAUNCHER 1"},
      {"stop", {"stop", "com.example.adbwire.demo"}, "Stopped"},
      {"open_url", {"open_url", "https://example.com"}, "Opened https://example.com"},
      {"foreground", {"foreground"}, "com.example.adbwire.demo"},
      {"apps", {"apps"}, "com.example.adbwire.demo \"adbwire demo\""},
      {"apps", {"apps", "--third-party"}, "packages the user installed"},
      {"apps", {"apps", "--system"}, "packages of the system image", "pm list packages -s"},
      {"notifications", {"notifications"}, "notification"},
      {"rotate", {"rotate", "landscape"}, "Rotated to landscape"},
      {"clipboard_set", {"clipboard_set", "copied text"}, "copied text"},
      {"clipboard_get", {"clipboard_get"}, "copied text"},
      {"date", {"date"}, "The device's clock"},
      {"setting_put", {"setting_put", "screen_off_timeout", "60000"}, "60000"},
      {"setting_get", {"setting_get", "screen_off_timeout"}, "screen_off_timeout = \"60000\""},
      {"logs", {"logs"}, "input keyevent 66"},
      {"secrets", {"secrets"}, "No secrets are configured"},
      {"capabilities", {"capabilities"}, "Supported:"},
      {"connect", {"connect", vd.target()}, "Connected to " + vd.target()},
      {"battery", {"battery"}, "Battery: 87%, charging"},
      {"sensors", {"sensors", "gyro"}, "LSM6DSV Gyroscope (STMicro)"},
      {"wifi", {"wifi", "off"}, "Turned Wi-Fi off", "svc wifi disable"},
      {"data", {"data", "off"}, "Turned mobile data off", "svc data disable"},
      {"airplane",
       {"airplane", "on"},
       "Turned airplane mode on",
       "cmd connectivity airplane-mode enable"},
      {"camera", {"camera"}, "Took a photo: /sdcard/DCIM/Camera/IMG_", "input keyevent 27"},
      {"remember", {"remember", "milk is in aisle 3"}, "Remembered as note"},
      {"recall", {"recall", "aisle milk"}, "milk is in aisle 3"},
      {"forget", {"forget", "--query", "milk aisle"}, "Forgot"},
      {"observations", {"observations"}, "The observation cache is off"},
      {"install", {"install", apk.string()}, "Success", {}, true},
      {"uninstall", {"uninstall", "com.example.app"}, "Success", {}, true},
      {"push", {"push", apk.string(), "/sdcard/Download/"}, "1 file pushed", {}, true},
      {"pull",
       {"pull", "/sdcard/Download/app.apk", (dir.path() / "back.apk").string()},
       "1 file pulled",
       {},
       true},
      {"devices", {"devices", vd.target()}, vd.target().substr(4) + "\tdevice", {}, true},
      {"shell", {"shell", "echo", "from the shell"}, "from the shell", {}, true},
      {"pair", {"pair", pairing, "482915"}, "Successfully paired to " + pairing, {}, true},
  };
  for (const verbs::Verb& verb : verbs::all()) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(),
                            [&](const VerbCase& c) { return c.verb == verb.name; }))
        << "no CLI case for the verb " << verb.name;
  }
  for (const VerbCase& c : cases) {
    const std::size_t before = vd.events().size();
    std::vector<std::string> args = c.args;
    if (c.one_shot) args.insert(args.begin(), {"-s", vd.target()});
    const CliResult result = c.one_shot ? sessions.plain(args) : sessions.run("agent", args);
    EXPECT_EQ(result.exit_code, 0) << c.verb << ": " << result.out;
    EXPECT_NE(result.out.find(c.expect), std::string::npos) << c.verb << ": " << result.out;
    if (!c.event.empty()) {
      const std::vector<std::string> events = vd.events();
      EXPECT_NE(
          std::find(events.begin() + static_cast<std::ptrdiff_t>(before), events.end(), c.event),
          events.end())
          << c.verb << " did not run " << c.event;
    }
  }
}

}  // namespace
}  // namespace adbwire
