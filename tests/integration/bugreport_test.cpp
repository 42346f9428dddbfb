// `adbwire bugreport` against devices adb's suite cannot hold at once: one whose bugreportz
// fails (no dumpstate), one older than Android 7 (no bugreportz: the text report), and a hostile
// one whose report's name holds terminal escapes. The name a device gives decides nothing but
// the plain base name inside the folder the user chose.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

test::ProcessResult bugreport(const VirtualDevice& vd, std::vector<std::string> args) {
  args.insert(args.begin(), {ADBWIRE_CLI_PATH, "--no-holder", "-s", vd.target(), "bugreport"});
  return test::run_process(std::move(args), {}, {}, 20s);
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename());
  return names;
}

TEST(Bugreport, TheDevicesFailTextIsShownAndNothingIsWritten) {
  VirtualDeviceOptions options;
  options.missing_commands = {"dumpstate"};
  VirtualDevice vd(options);
  vd.start();
  test::TempDir temp;
  const test::ProcessResult result = bugreport(vd, {temp.path().string()});
  EXPECT_EQ(result.exit_code, 255) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "adbwire: device failed to take a zipped bugreport: Failed to connect to dumpstatez "
            "service: Connection refused\n");
  EXPECT_TRUE(names_in(temp.path()).empty());
}

TEST(Bugreport, ADeviceOlderThanAndroid7PrintsItsTextReport) {
  VirtualDeviceOptions options;
  apply_profile(options, "android-4");
  VirtualDevice vd(options);
  vd.start();
  const test::ProcessResult result = bugreport(vd, {});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("====")) << result.out;
  EXPECT_NE(result.out.find("== dumpstate:"), std::string::npos);
  EXPECT_TRUE(
      result.err.starts_with("Failed to get bugreportz version, which is only available "
                             "on devices running Android 7.0 or later.\n"))
      << result.err;

  // With a PATH the user asked for a zip: no text report in its place.
  test::TempDir temp;
  const test::ProcessResult zip = bugreport(vd, {(temp.path() / "r.zip").string()});
  EXPECT_NE(zip.exit_code, 0);
  EXPECT_EQ(zip.out, "");
  EXPECT_TRUE(zip.err.starts_with("adbwire: failed to get bugreportz version")) << zip.err;
  EXPECT_TRUE(names_in(temp.path()).empty());
}

TEST(Bugreport, AHostileNameBecomesAPlainFileInTheChosenFolder) {
  VirtualDeviceOptions options;
  options.hostile_output = HostileOutput::escapes;
  VirtualDevice vd(options);
  vd.start();
  test::TempDir temp;
  const fs::path folder = temp.path() / "out";
  fs::create_directories(folder);
  const test::ProcessResult result = bugreport(vd, {folder.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> names = names_in(folder);
  ASSERT_EQ(names.size(), 1u);
  for (const char c : names[0]) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) ||
                std::string_view("._-+@,").find(c) != std::string_view::npos)
        << names[0];
  }
  EXPECT_TRUE(names[0].starts_with("bugreport-vdevice-")) << names[0];
  EXPECT_EQ(names_in(temp.path()).size(), 1u);  // nothing beside the folder
  EXPECT_GT(fs::file_size(folder / names[0]), 22u);
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace adbwire
