// What an agent (steered by what a screen says) and another local user cannot make adbwire do: the
// MCP install tool sends only an APK from a folder the operator allowed, never the adb key (push
// and pull read and write only there too); files
// adbwire keeps for itself (recordings included) are 0600 in a 0700 folder of its own, even when
// --snapshot-dir is a folder others may enter; a session client refuses another user's socket or
// process before it sends a byte, and the session daemon refuses another user's process.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/cli_host_fixture.hpp"
#include "integration/mcp_lines.hpp"
#include "integration/other_user.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;
using test::text_of;

unsigned mode_of(const fs::path& path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_mode & 07777;
}

// An APK as far as the check goes: a ZIP holding AndroidManifest.xml, stored (not deflated) so
// the virtual device reads "package=… versionCode=…" from the bytes it receives.
void write_zip(const fs::path& path, const std::string& entry, const std::string& content) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(archive, nullptr) << "zip_open " << error;
  zip_source_t* source = zip_source_buffer(archive, content.data(), content.size(), 0);
  const zip_int64_t index = zip_file_add(archive, entry.c_str(), source, ZIP_FL_OVERWRITE);
  ASSERT_GE(index, 0);
  zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
  ASSERT_EQ(zip_close(archive), 0);
}

class HostileHost : public test::CliHostTest {
 protected:
  // `adbwire mcp TARGET flags…` with one tools/call per (tool, arguments): each call's result.
  std::vector<Json> mcp(const std::vector<std::string>& flags,
                        const std::vector<std::pair<std::string, Json>>& calls) const {
    std::vector<std::string> args = {"mcp", vd_->target()};
    args.insert(args.end(), flags.begin(), flags.end());
    const test::ProcessResult server = adbwire(args, {}, test::tools_calls(calls));
    EXPECT_EQ(server.exit_code, 0) << server.err;
    return test::tool_results(server.out, calls.size());
  }

  std::size_t installs() const {
    const std::vector<std::string> events = vd_->events();
    return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [](auto& e) {
      return e.find("install") != std::string::npos && e.find("uninstall") == std::string::npos;
    }));
  }
};

// A screen can prompt-inject an agent; the install tool must not be the way a private file leaves.
TEST_F(HostileHost, McpInstallSendsOnlyAnApkFromAnAllowedFolder) {
  // The adb key exists, a text file and APKs lie around.
  const fs::path key = home() / ".android/adbkey";
  ASSERT_EQ(adbwire({"keygen", key.string()}).exit_code, 0);
  ASSERT_TRUE(fs::exists(key));
  const fs::path apks = dir_.path() / "apks";
  const fs::path elsewhere = dir_.path() / "elsewhere";
  fs::create_directories(apks);
  fs::create_directories(elsewhere);
  write_zip(apks / "app.apk", "AndroidManifest.xml", "package=com.example.app versionCode=3");
  write_zip(elsewhere / "app.apk", "AndroidManifest.xml", "package=com.example.app versionCode=3");
  write_zip(apks / "not-an-app.zip", "notes.txt", "no manifest here");
  std::ofstream(apks / "notes.txt") << "a text file\n";
  fs::create_symlink(key, apks / "key.apk");

  const auto calls = [](const std::vector<fs::path>& paths) {
    std::vector<std::pair<std::string, Json>> list;
    for (const fs::path& path : paths) list.push_back({"install", {{"path", path.string()}}});
    return list;
  };
  // None allowed by default: even a real APK is refused, and the message says how to allow.
  const std::vector<Json> closed = mcp({}, calls({key, apks / "app.apk"}));
  for (const Json& result : closed) {
    EXPECT_TRUE(result.value("isError", false)) << result;
    EXPECT_NE(text_of(result).find("--allow-install-from DIR"), std::string::npos) << result;
  }
  EXPECT_EQ(installs(), 0u);

  const std::vector<Json> allowed =
      mcp({"--allow-install-from", apks.string()},
          calls({key, apks / "notes.txt", apks / "not-an-app.zip", apks / "key.apk",
                 elsewhere / "app.apk", apks / "../elsewhere/app.apk", apks / "app.apk"}));
  const std::vector<std::string> expected = {
      "is outside the folders install may read",  // the key itself
      "is not an APK",                            // a text file
      "is not an APK",                            // a ZIP without AndroidManifest.xml
      "is outside the folders install may read",  // a link to the key inside the folder
      "is outside the folders install may read",  // an APK elsewhere
      "is outside the folders install may read",  // the same through ".."
      "Installed",
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(allowed[i].value("isError", true), expected[i] != "Installed") << allowed[i];
    EXPECT_NE(text_of(allowed[i]).find(expected[i]), std::string::npos) << i << ": " << allowed[i];
  }
  EXPECT_EQ(installs(), 1u) << "only the allowed APK reached the device";

  // Allowing the home folder does not open the key folder inside it.
  const std::vector<Json> home_allowed =
      mcp({"--allow-install-from", home().string()}, calls({key}));
  EXPECT_TRUE(home_allowed[0].value("isError", false));
  EXPECT_NE(text_of(home_allowed[0]).find("holds adbwire's keys or files"), std::string::npos)
      << home_allowed[0];
  EXPECT_EQ(installs(), 1u);
}

// push and pull keep install's rule: they read and write only inside the folders the operator
// allowed, never the key folder, never through a link.
TEST_F(HostileHost, McpPushAndPullStayInsideTheAllowedFolders) {
  const fs::path key = home() / ".android/adbkey";
  ASSERT_EQ(adbwire({"keygen", key.string()}).exit_code, 0);
  const fs::path files = dir_.path() / "files";
  const fs::path elsewhere = dir_.path() / "elsewhere";
  fs::create_directories(files);
  fs::create_directories(elsewhere);
  std::ofstream(files / "notes.txt") << "notes for the device\n";
  fs::create_symlink(key, files / "key.txt");
  fs::create_symlink(elsewhere / "planted.txt", files / "planted.txt");
  const auto push = [](const fs::path& path, const std::string& remote) {
    return std::pair<std::string, Json>{"push", {{"path", path.string()}, {"remote", remote}}};
  };
  const auto pull = [](const std::string& remote, const fs::path& path) {
    return std::pair<std::string, Json>{"pull", {{"remote", remote}, {"path", path.string()}}};
  };

  // None allowed by default.
  const std::vector<Json> closed =
      mcp({}, {push(files / "notes.txt", "/sdcard/"), pull("/sdcard/notes.txt", files / "x")});
  for (const Json& result : closed) {
    EXPECT_TRUE(result.value("isError", false)) << result;
    EXPECT_NE(text_of(result).find("--allow-install-from DIR"), std::string::npos) << result;
  }

  const std::vector<Json> allowed =
      mcp({"--allow-install-from", files.string()},
          {push(key, "/sdcard/"), push(files / "key.txt", "/sdcard/"),
           push(files / "../elsewhere", "/sdcard/"), push(files / "notes.txt", "/sdcard/Download/"),
           pull("/sdcard/Download/notes.txt", elsewhere / "notes.txt"),
           pull("/sdcard/Download/notes.txt", files / "planted.txt"),
           pull("/sdcard/Download/notes.txt", files / "sub/notes.txt"),
           pull("/sdcard/Download/notes.txt", files / "back.txt")});
  const std::vector<std::string> expected = {
      "is outside the folders push may read",   // the key
      "is outside the folders push may read",   // a link to the key inside the folder
      "is outside the folders push may read",   // a folder elsewhere through ".."
      "Pushed",                                 // into a folder: the copy keeps the file's name
      "is outside the folders pull may write",  // a copy elsewhere
      "is a symbolic link",                     // a link planted where the copy goes
      "cannot write into the folder",           // a folder that does not exist
      "Pulled /sdcard/Download/notes.txt",
  };
  ASSERT_EQ(allowed.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const bool ok = expected[i].starts_with("Pu");
    EXPECT_EQ(allowed[i].value("isError", true), !ok) << allowed[i];
    EXPECT_NE(text_of(allowed[i]).find(expected[i]), std::string::npos) << i << ": " << allowed[i];
  }
  EXPECT_NE(text_of(allowed[3]).find("/sdcard/Download/notes.txt"), std::string::npos);
  std::ifstream back(files / "back.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(back), {}), "notes for the device\n");
  EXPECT_FALSE(fs::exists(elsewhere / "notes.txt"));
  EXPECT_FALSE(fs::exists(elsewhere / "planted.txt"));

  // Allowing the home folder does not open the key folder inside it, for reading or writing.
  const std::vector<Json> home_allowed =
      mcp({"--allow-install-from", home().string()},
          {push(key, "/sdcard/"), pull("/sdcard/Download/notes.txt", home() / ".android/adbkey")});
  for (const Json& result : home_allowed) {
    EXPECT_TRUE(result.value("isError", false)) << result;
    EXPECT_NE(text_of(result).find("holds adbwire's keys or files"), std::string::npos) << result;
  }
}

// Every byte of every file under root that contains needle, by path.
std::vector<std::string> files_holding(const fs::path& root, const std::string& needle,
                                       const fs::path& except) {
  std::vector<std::string> found;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file() || it->path() == except) continue;
    std::ifstream in(it->path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.find(needle) != std::string::npos) found.push_back(it->path().string());
  }
  return found;
}

// A secret typed with type --secret reaches the device and nothing else: no reply, error, log
// line or saved file of the MCP server or the CLI session shows it, and a screen that shows it
// afterwards (a field that is no password field) is masked.
TEST_F(HostileHost, ATypedSecretAppearsInNoOutputAndNoFile) {
  const std::string value = "Zq7-pa55word_Xy";
  const fs::path secrets = home() / "secrets";
  std::ofstream(secrets) << "# the operator's secrets\npin=" << value << "\nother=unused\n";
  ::chmod(secrets.c_str(), 0600);
  const std::vector<std::pair<std::string, Json>> calls = {
      {"secrets", Json::object()},
      {"tap", {{"text", "Add item"}}},
      {"type", {{"id", "name"}, {"secret", "pin"}}},
      {"snapshot", Json::object()},
      {"page_source", Json::object()},
      {"type", {{"id", "name"}, {"secret", "missing"}}},
      {"type", {{"id", "name"}, {"secret", "pin"}, {"text", "both"}}},
  };
  std::vector<std::string> args = {"mcp", vd_->target(), "--secrets-file", secrets.string()};
  const test::ProcessResult server = adbwire(args, {}, test::tools_calls(calls));
  ASSERT_EQ(server.exit_code, 0) << server.err;
  const std::vector<Json> results = test::tool_results(server.out, calls.size());
  EXPECT_NE(text_of(results[0]).find("2 secrets"), std::string::npos) << results[0];
  EXPECT_NE(text_of(results[0]).find("pin\n"), std::string::npos) << results[0];
  EXPECT_FALSE(results[2].value("isError", true)) << results[2];
  EXPECT_NE(text_of(results[2]).find("Typed the secret pin into ref"), std::string::npos)
      << results[2];
  // The screen now shows the value in the field: the snapshot shows the secret's name instead.
  EXPECT_NE(text_of(results[3]).find("<secret pin>"), std::string::npos) << results[3];
  EXPECT_TRUE(results[5].value("isError", false));
  EXPECT_NE(text_of(results[5]).find("no secret named missing (there are: other, pin)"),
            std::string::npos)
      << results[5];
  EXPECT_NE(text_of(results[6]).find("not both"), std::string::npos) << results[6];
  // It was typed: the device got it (the virtual device logs the input command it ran).
  const std::vector<std::string> events = vd_->events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [&](const std::string& e) {
    return e.find(value) != std::string::npos;
  })) << "the secret never reached the device";
  EXPECT_EQ(server.out.find(value), std::string::npos) << server.out;
  EXPECT_EQ(server.err.find(value), std::string::npos) << server.err;

  // The CLI session, its secrets from the environment of the daemon `open` starts.
  const std::vector<std::string> secret_env = {"ADBWIRE_SECRET_pin=" + value};
  const auto cli = [&](std::vector<std::string> words) {
    return adbwire(std::move(words), secret_env);
  };
  std::string said;
  for (const std::vector<std::string>& words :
       std::vector<std::vector<std::string>>{{"open", vd_->target()},
                                             {"secrets"},
                                             {"type", "--id", "name", "--secret", "pin"},
                                             {"snapshot", "--print"},
                                             {"page_source"},
                                             {"type", "--id", "name", "--secret", "nope"},
                                             {"close"}}) {
    const test::ProcessResult run = cli(words);
    said += run.out + run.err;
  }
  EXPECT_NE(said.find("Typed the secret pin"), std::string::npos) << said;
  EXPECT_NE(said.find("<secret pin>"), std::string::npos) << said;
  EXPECT_NE(said.find("no secret named nope"), std::string::npos) << said;
  EXPECT_EQ(said.find(value), std::string::npos) << said;
  // No file anywhere in the test's folders (home, runtime folder, saved snapshots and page
  // sources) nor in the CLI's .adbwire folder holds it, the secrets file aside.
  EXPECT_EQ(files_holding(dir_.path(), value, secrets), std::vector<std::string>{});
  EXPECT_EQ(files_holding(fs::current_path() / ".adbwire", value, secrets),
            std::vector<std::string>{});

  // A secrets file others can read is refused, and the message says why and what to do.
  ::chmod(secrets.c_str(), 0644);
  const std::vector<Json> open_file =
      mcp({"--secrets-file", secrets.string()}, {{"type", {{"id", "name"}, {"secret", "pin"}}}});
  EXPECT_TRUE(open_file[0].value("isError", false));
  EXPECT_NE(text_of(open_file[0]).find("has mode 0644: others on this computer can read it"),
            std::string::npos)
      << open_file[0];
  EXPECT_NE(text_of(open_file[0]).find("chmod 600"), std::string::npos) << open_file[0];
  EXPECT_EQ(text_of(open_file[0]).find(value), std::string::npos);
}

// Recordings, page sources and oversized snapshots are this user's alone, even when
// --snapshot-dir names a folder others may enter: they go into a 0700 folder inside it.
TEST_F(HostileHost, SavedFilesAndRecordingsArePrivateInAFolderOthersMayEnter) {
  const fs::path shared = dir_.path() / "shared";
  fs::create_directories(shared);
  ::chmod(shared.c_str(), 0755);
  const std::vector<Json> results =
      mcp({"--snapshot-dir", shared.string()}, {{"page_source", Json::object()},
                                                {"record_start", {{"time_limit_s", 30}}},
                                                {"record_stop", Json::object()}});
  std::vector<fs::path> saved;
  for (const Json& result : results) {
    ASSERT_FALSE(result.value("isError", true)) << result;
    std::smatch match;
    const std::string text = text_of(result);
    if (std::regex_search(text, match, std::regex("(/\\S+\\.(xml|mp4))")))
      saved.emplace_back(match[1].str());
  }
  ASSERT_EQ(saved.size(), 2u) << results[0] << results[2];
  for (const fs::path& file : saved) {
    EXPECT_EQ(mode_of(file), 0600u) << file;
    EXPECT_EQ(file.parent_path().parent_path(), shared) << file;
    EXPECT_EQ(mode_of(file.parent_path()), 0700u) << file.parent_path();
    EXPECT_GT(fs::file_size(file), 0u) << file;
  }
  EXPECT_EQ(mode_of(shared), 0755u) << "the user's folder is left as it was";
}

// A session client pointed at another user's socket ($ADBWIRE_SESSION) sends nothing there: not
// the verb, not the text to type.
TEST_F(HostileHost, ASessionClientRefusesAnotherUsersSocketBeforeSendingAByte) {
  ASSERT_EQ(::geteuid(), 0u) << "this test plays another user: run it as root";
  const fs::path socket = test::folder_open_to_nobody(dir_.path()) / "session.sock";
  test::NobodysSocket theirs(socket);
  ASSERT_TRUE(theirs.listening());
  const std::vector<std::string> pointed = {"ADBWIRE_SESSION=" + socket.string()};

  const test::ProcessResult other_owner = adbwire({"type", "3", "hunter2-secret"}, pointed);
  EXPECT_EQ(other_owner.exit_code, 1);
  EXPECT_NE(other_owner.err.find("refusing the adbwire daemon's socket"), std::string::npos)
      << other_owner.err;
  EXPECT_NE(other_owner.err.find("it belongs to user 65534"), std::string::npos) << other_owner.err;
  EXPECT_NE(other_owner.err.find("ADBWIRE_SESSION"), std::string::npos) << other_owner.err;

  ASSERT_EQ(::chown(socket.c_str(), 0, 0), 0);  // ours on disk, still theirs behind it
  ::chmod(socket.c_str(), 0600);
  const test::ProcessResult other_process = adbwire({"type", "3", "hunter2-secret"}, pointed);
  EXPECT_EQ(other_process.exit_code, 1);
  EXPECT_NE(other_process.err.find("the process answering there runs as user 65534"),
            std::string::npos)
      << other_process.err;
  EXPECT_EQ(theirs.heard(), "") << "another user's process received a request";
}

// The daemon holding the sessions serves only its own user, even when its socket's mode was
// opened up.
TEST_F(HostileHost, TheSessionDaemonRefusesAnotherUsersProcess) {
  ASSERT_EQ(::geteuid(), 0u) << "this test plays another user: run it as root";
  ASSERT_EQ(adbwire({"open", vd_->target()}).exit_code, 0);
  fs::path socket;
  for (const auto& entry : fs::directory_iterator(run() / "adbwire")) {
    if (entry.path().extension() == ".sock") socket = entry.path();
  }
  ASSERT_FALSE(socket.empty()) << "no daemon socket in " << run() / "adbwire";
  EXPECT_EQ(mode_of(socket), 0600u);
  ::chmod(run().c_str(), 0755);
  ::chmod(dir_.path().c_str(), 0755);
  ::chmod((run() / "adbwire").c_str(), 0777);
  ::chmod(socket.c_str(), 0666);
  // The daemon's session request (a smart-socket request naming the default session), then the
  // verb's JSON-RPC line, as the CLI sends them.
  const std::string service = "host:adbwire-session:";
  char length[5];
  std::snprintf(length, sizeof length, "%04zx", service.size());
  const std::string request =
      length + service +
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"press","arguments":{"key":"home"}}})"
      "\n";
  const std::size_t before = vd_->events().size();
  const std::string answer = test::ask_as_nobody(socket, request);
  EXPECT_EQ(answer, "") << "the daemon answered another user";
  EXPECT_EQ(vd_->events().size(), before) << "another user's request reached the device";
  ::chmod((run() / "adbwire").c_str(), 0700);
  ::chmod(socket.c_str(), 0600);
  const test::ProcessResult ours = adbwire({"press", "home"});
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(adbwire({"close"}).exit_code, 0);
}

}  // namespace
}  // namespace adbwire
