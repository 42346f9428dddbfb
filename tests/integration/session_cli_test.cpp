// The CLI session: `adbwire open` once, then snapshot/tap/type/press/screenshot as separate
// processes that reuse the daemon's one connection (the virtual device counts them).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/shell_quote.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

using detail::shell_quote;

struct CliResult {
  int exit_code = -1;
  std::string out;
};

// A folder to run the CLI in, with a private session socket; closes the session at the end.
class SessionDir {
 public:
  SessionDir() {
    std::random_device random;
    path_ = fs::temp_directory_path() / ("adbwire-session-test-" + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~SessionDir() {
    run({"close"});
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  fs::path socket() const { return path_ / "session.sock"; }

  // Runs `adbwire args…` in the folder; stdout is returned, stderr appended after it.
  CliResult run(const std::vector<std::string>& args) const {
    return run_with_env("ADBWIRE_SESSION=" + shell_quote(socket().string()), args);
  }

  // The same with env ("NAME=value …" for env(1)) instead of the private socket.
  CliResult run_with_env(const std::string& env, const std::vector<std::string>& args) const {
    std::string command = "cd " + shell_quote(path_.string()) + " && env " + env + " " +
                          shell_quote(ADBWIRE_CLI_PATH);
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

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(SessionCli, CommandsReuseOneConnectionAndWriteFilesUnderDotAdbwire) {
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  VirtualDevice vd(options);
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
  EXPECT_FALSE(fs::exists(dir.socket()));
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
  VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  VirtualDevice vd(options);
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
  ASSERT_TRUE(fs::exists(dir.socket()));
  // Generous bound: the daemon is only asked to be gone, never how fast.
  for (int i = 0; i < 300 && fs::exists(dir.socket()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(fs::exists(dir.socket()));
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
  const fs::path socket = runtime / "adbwire" / "session.sock";
  EXPECT_NE(opened.out.find(socket.string()), std::string::npos) << opened.out;
  struct stat info {};
  ASSERT_EQ(::stat(socket.parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700U);
  ASSERT_EQ(::stat(socket.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600U);
  EXPECT_EQ(dir.run_with_env(env, {"press", "back"}).exit_code, 0);
  EXPECT_EQ(dir.run_with_env(env, {"close"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(socket));

  // A folder others can read is refused rather than used.
  ASSERT_EQ(::chmod(socket.parent_path().c_str(), 0755), 0);
  const CliResult refused = dir.run_with_env(env, {"open", vd.target()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.out.find("mode 0700"), std::string::npos) << refused.out;
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
  EXPECT_FALSE(fs::exists(dir.socket()));
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

}  // namespace
}  // namespace adbwire
