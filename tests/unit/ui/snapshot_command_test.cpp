// `adbwire snapshot --xml FILE|-` run as a program on real dumps and on device error text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kCli = ADBWIRE_CLI_PATH;
const fs::path kDump = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml" /
                       "android-phone-network-settings.xml";
const fs::path kGolden = fs::path(ADBWIRE_SOURCE_DIR) / "tests" / "unit" / "ui" / "golden" /
                         "android-phone-network-settings.txt";

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr together
};

Result run(const std::string& args) {
  Result r;
  FILE* p = popen((kCli + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SnapshotCommand, FormatsASavedDump) {
  ASSERT_TRUE(fs::exists(kCli)) << "build the adbwire_cli target first: " << kCli;
  const Result r = run("snapshot --xml '" + kDump.string() + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, read(kGolden));
}

TEST(SnapshotCommand, ReadsStdinAndPrintsJson) {
  const Result text = run("snapshot --xml - < '" + kDump.string() + "'");
  EXPECT_EQ(text.status, 0);
  EXPECT_EQ(text.out, read(kGolden));
  const Result json = run("snapshot --json --xml - < '" + kDump.string() + "'");
  ASSERT_EQ(json.status, 0) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out)["nodes"][0]["role"], "Group");
}

TEST(SnapshotCommand, OptionsReachThePipeline) {
  const Result r = run("snapshot --max-depth 1 --xml '" + kDump.string() + "'");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "# app: com.android.phone\n- Group:\n  - … [refs 1-6 hidden]\n");
  const Result compact = run("snapshot --compact --interactive --xml '" + kDump.string() + "'");
  EXPECT_EQ(compact.status, 0);
  EXPECT_THAT(compact.out, HasSubstr("- Image [ref=1] (Voltar)\n"));
}

TEST(SnapshotCommand, ErrorsSayWhatToDo) {
  const Result no_xml = run("snapshot");
  EXPECT_NE(no_xml.status, 0);
  // Without --xml (and no session open) a live snapshot has nothing to talk to: say how to get one.
  EXPECT_THAT(no_xml.out, HasSubstr("no adbwire session is running"));
  EXPECT_THAT(no_xml.out, HasSubstr("adbwire open"));
  const Result missing = run("snapshot --xml /nonexistent/dump.xml");
  EXPECT_NE(missing.status, 0);
  EXPECT_THAT(missing.out, HasSubstr("/nonexistent/dump.xml"));
  const fs::path idle_file = fs::path(::testing::TempDir()) / "adbwire_idle_error.txt";
  std::ofstream(idle_file) << "ERROR: could not get idle state.\n";
  const Result idle = run("snapshot --xml - < '" + idle_file.string() + "'");
  fs::remove(idle_file);
  EXPECT_NE(idle.status, 0);
  EXPECT_THAT(idle.out, HasSubstr("\"ERROR: could not get idle state.\""));
}

}  // namespace
