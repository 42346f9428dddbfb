// Trajectory's log on its own (no device): every line is one JSON object a standard parser
// reads back, whatever bytes a step's arguments hold, and a folder it cannot use is reported
// with its detail on both halves of the API pair.
#include "adbwire/trajectory.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

std::vector<std::string> log_lines(const std::filesystem::path& dir) {
  std::ifstream log(dir / "trajectory.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(log, line);) lines.push_back(line);
  return lines;
}

TEST(Trajectory, EveryLineIsJsonWhateverBytesTheArgumentsHold) {
  test::TempDir dir;
  Trajectory trajectory(TrajectoryOptions{.dir = dir.path() / "run"});
  TrajectoryStep step;
  step.action = "type";
  // Quotes, a backslash, line breaks, other controls, and bytes that are not UTF-8.
  step.args = {{"text", "say \"hi\"\\\n\r\t\x01\x7f caf\xc3\xa9"},
               {"raw", std::string("\xff\xfe\x80", 3)}};
  step.error = make_error_code(errc::not_found);
  step.message = "ref 77 is not in the snapshot";
  trajectory.record(step);
  TrajectoryStep snapshot;
  snapshot.action = "snapshot";
  snapshot.snapshot = "0002-snapshot.txt";
  trajectory.record(snapshot);
  EXPECT_EQ(trajectory.steps(), 2U);

  const std::vector<std::string> lines = log_lines(dir.path() / "run");
  ASSERT_EQ(lines.size(), 2U);
  const auto first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["step"], 1);
  EXPECT_EQ(first["action"], "type");
  EXPECT_EQ(first["args"]["text"], "say \"hi\"\\\n\r\t\x01\x7f caf\xc3\xa9");
  EXPECT_EQ(first["args"]["raw"], "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // three U+FFFD
  EXPECT_EQ(first["ok"], false);
  EXPECT_EQ(first["message"], "ref 77 is not in the snapshot");
  const auto second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["step"], 2);
  EXPECT_EQ(second["ok"], true);
  EXPECT_EQ(second["snapshot"], "0002-snapshot.txt");
}

TEST(Trajectory, AFolderItCannotUseIsReportedWithItsDetail) {
  test::TempDir dir;
  const std::filesystem::path file = dir.path() / "file";
  std::ofstream(file) << "not a folder";
  std::error_code error;
  Trajectory trajectory(TrajectoryOptions{.dir = file / "run"}, error);
  EXPECT_TRUE(error);
  EXPECT_NE(last_error_detail().find((file / "run").string()), std::string::npos)
      << last_error_detail();
  try {
    Trajectory throwing(TrajectoryOptions{.dir = file / "run"});
    FAIL() << "a folder under a file cannot be made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), error);
    EXPECT_NE(e.detail().find((file / "run").string()), std::string::npos) << e.detail();
  }
}

}  // namespace
}  // namespace adbwire
