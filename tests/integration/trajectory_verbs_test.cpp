// Trajectories as verbs (record_trajectory_start, record_trajectory_stop, replay_trajectory)
// through the MCP tools on virtual devices: a run recorded on one device replays on a fresh one,
// a replay onto a changed screen stops at the first step it cannot find, a secret stays masked in
// the file, and the file is private and read only where the operator allowed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "adbwire/trajectory.hpp"
#include "integration/temp_dir.hpp"
#include "integration/tools_fixture.hpp"

namespace adbwire::mcp {
namespace {

namespace fs = std::filesystem;

using testing_tools::text_of;

const fs::path kDemoScreens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
const std::string kSecret = "Tr4jectory-s3cret-9";

VirtualDeviceOptions demo(const fs::path& screens = kDemoScreens) {
  VirtualDeviceOptions options;
  options.screens = screens;
  return options;
}

std::vector<nlohmann::json> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The step number of the first action on the element with this resource-id.
std::uint64_t step_acting_on(const std::vector<nlohmann::json>& lines, const std::string& action,
                             const std::string& id) {
  for (const nlohmann::json& line : lines) {
    if (line["action"] == action && line.contains("elements") &&
        line["elements"][0]["resource_id"] == "com.example.adbwire.demo:id/" + id)
      return line["step"].get<std::uint64_t>();
  }
  return 0;
}

class TrajectoryVerbs : public testing_tools::ToolsTest {
 protected:
  TrajectoryVerbs() {
    fs::create_directories(runs());
    std::ofstream(secrets()) << "pin=" << kSecret << "\n";
    fs::permissions(secrets(), fs::perms::owner_read | fs::perms::owner_write);
  }
  DeviceToolsOptions options_for(const VirtualDevice& device) const {
    DeviceToolsOptions o = ToolsTest::options_for(device);
    o.verbs.host_files.allowed = {runs()};
    o.verbs.secrets = {.env_prefix = "", .file = secrets()};
    return o;
  }
  fs::path runs() const { return work_.path() / "runs"; }
  fs::path secrets() const { return work_.path() / "secrets"; }

  // Adds an item on the demo app (Add item, its name, Save) while recording into runs()/name;
  // returns the trajectory file.
  fs::path record_adding(DeviceTools& tools, const std::string& name, const Json& typing) {
    const Json started =
        call(tools, "record_trajectory_start", {{"path", (runs() / name).string()}});
    EXPECT_FALSE(started["isError"].get<bool>()) << text_of(started);
    for (const auto& [verb, arguments] :
         std::vector<std::pair<std::string, Json>>{{"snapshot", Json::object()},
                                                   {"tap", {{"id", "add_item"}}},
                                                   {"type", typing},
                                                   {"tap", {{"id", "save"}}}}) {
      const Json result = call(tools, verb, arguments);
      EXPECT_FALSE(result["isError"].get<bool>()) << verb << ": " << text_of(result);
    }
    const Json stopped = call(tools, "record_trajectory_stop");
    EXPECT_FALSE(stopped["isError"].get<bool>()) << text_of(stopped);
    const fs::path file = runs() / name / "trajectory.jsonl";
    EXPECT_NE(text_of(stopped).find(file.string()), std::string::npos) << text_of(stopped);
    return file;
  }
};

TEST_F(TrajectoryVerbs, ARunRecordedOnOneDeviceReplaysOnAFreshOneWithItsSecretMasked) {
  VirtualDevice first(demo());
  first.start();
  fs::path file;
  {
    DeviceTools tools(options_for(first));
    file = record_adding(tools, "groceries", {{"id", "name"}, {"secret", "pin"}});
  }
  bool typed_on_first = false;
  for (const std::string& event : first.events())
    typed_on_first |= event.find(kSecret) != std::string::npos;
  ASSERT_TRUE(typed_on_first) << "the secret reached the recorded device";

  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(file.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  const std::string bytes = bytes_of(file);
  EXPECT_EQ(bytes.find(kSecret), std::string::npos) << "the value is in the trajectory";
  EXPECT_NE(bytes.find("<secret pin>"), std::string::npos);

  // Each observation with its hash, each action with its element, point and timing.
  const std::vector<nlohmann::json> lines = lines_of(file);
  std::size_t observations = 0;
  for (const nlohmann::json& line : lines) {
    if (line.contains("observation")) {
      ++observations;
      EXPECT_EQ(line["snapshot_hash"], snapshot_hash(line["observation"].get<std::string>()));
    }
  }
  EXPECT_GE(observations, 2u);
  const std::uint64_t add = step_acting_on(lines, "tap", "add_item");
  ASSERT_NE(add, 0u) << bytes;
  const nlohmann::json& tap = lines[add - 1];
  EXPECT_EQ(tap["elements"][0]["text"], "Add item");
  EXPECT_EQ(tap["elements"][0]["class"], "android.widget.Button");
  EXPECT_EQ(tap["elements"][0]["bounds"].size(), 4u);
  EXPECT_FALSE(tap["elements"][0]["identity_token"].get<std::string>().empty());
  ASSERT_EQ(tap["points"].size(), 1u);
  EXPECT_TRUE(tap.contains("ms"));
  EXPECT_TRUE(tap["snapshot_hash"].get<std::string>().starts_with("sha256:"));
  EXPECT_NE(step_acting_on(lines, "type", "name"), 0u);

  VirtualDevice fresh(demo());
  fresh.start();
  DeviceTools tools(options_for(fresh));
  const Json replayed = call(tools, "replay_trajectory", {{"file", file.string()}});
  ASSERT_FALSE(replayed["isError"].get<bool>()) << text_of(replayed);
  EXPECT_NE(text_of(replayed).find("Replayed 3 actions"), std::string::npos) << text_of(replayed);
  EXPECT_EQ(text_of(replayed).find(kSecret), std::string::npos);
  bool typed_on_fresh = false;
  for (const std::string& event : fresh.events())
    typed_on_fresh |= event.find(kSecret) != std::string::npos;
  EXPECT_TRUE(typed_on_fresh) << "the secret was typed again from its source";
  const std::string now = text_of(call(tools, "foreground"));
  EXPECT_NE(now.find("ListActivity"), std::string::npos) << "Save took it back: " << now;
}

TEST_F(TrajectoryVerbs, AReplayOntoAChangedScreenStopsAtTheFirstStepItCannotFind) {
  // The app, updated: its Save button is now Done (another id and text).
  const fs::path changed = work_.path() / "changed";
  fs::copy(kDemoScreens, changed);
  for (const char* name : {"add.xml", "screens.xml"}) {
    std::string xml = bytes_of(changed / name);
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"id/save", "id/done"},
                                   {"text=\"Save\"", "text=\"Done\""}}) {
      for (std::size_t at = xml.find(from); at != std::string::npos; at = xml.find(from, at))
        xml.replace(at, from.size(), to);
    }
    std::ofstream(changed / name, std::ios::trunc) << xml;
  }
  VirtualDevice first(demo());
  first.start();
  fs::path file;
  {
    DeviceTools tools(options_for(first));
    file = record_adding(tools, "pears", {{"id", "name"}, {"text", "pears"}});
  }
  const std::uint64_t save = step_acting_on(lines_of(file), "tap", "save");
  ASSERT_NE(save, 0u);

  VirtualDevice updated(demo(changed));
  updated.start();
  DeviceTools tools(options_for(updated));
  const Json replayed = call(tools, "replay_trajectory", {{"file", file.string()}});
  ASSERT_TRUE(replayed["isError"].get<bool>()) << text_of(replayed);
  const std::string said = text_of(replayed);
  EXPECT_NE(said.find("step " + std::to_string(save) + " (tap Button \"Save\")"), std::string::npos)
      << said;
  EXPECT_NE(said.find("gone"), std::string::npos) << said;
  // The steps before it were played; nothing was sent for it.
  const std::vector<std::string> events = updated.events();
  bool typed = false;
  for (const std::string& event : events) typed |= event.find("pears") != std::string::npos;
  EXPECT_TRUE(typed);
  const std::string now = text_of(call(tools, "foreground"));
  EXPECT_NE(now.find("AddItemActivity"), std::string::npos) << now;
}

TEST_F(TrajectoryVerbs, PathsOutsideTheAllowedFoldersAndBadFilesAreRefused) {
  VirtualDevice vd(demo());
  vd.start();
  DeviceTools tools(options_for(vd));
  const Json outside =
      call(tools, "record_trajectory_start", {{"path", (work_.path() / "elsewhere").string()}});
  EXPECT_TRUE(outside["isError"].get<bool>());
  EXPECT_NE(text_of(outside).find("is outside the folders"), std::string::npos) << text_of(outside);
  EXPECT_TRUE(call(tools, "record_trajectory_stop")["isError"].get<bool>());

  const fs::path stray = work_.path() / "stray.jsonl";
  std::ofstream(stray) << "{\"step\":1,\"action\":\"tap\",\"args\":{},\"ok\":true}\n";
  const Json refused = call(tools, "replay_trajectory", {{"file", stray.string()}});
  EXPECT_TRUE(refused["isError"].get<bool>());
  EXPECT_NE(text_of(refused).find("is outside the folders"), std::string::npos) << text_of(refused);

  const fs::path broken = runs() / "broken.jsonl";
  std::ofstream(broken) << "{\"step\":1,\"action\":\"tap\",\"args\":{\"ref\":\"3\"},\"ok\":true}\n"
                        << "not json\n";
  const std::size_t before = vd.events().size();
  const Json unplayable = call(tools, "replay_trajectory", {{"file", broken.string()}});
  EXPECT_TRUE(unplayable["isError"].get<bool>());
  EXPECT_NE(text_of(unplayable).find("step 1 (tap) does not record the element"), std::string::npos)
      << text_of(unplayable);
  EXPECT_EQ(vd.events().size(), before) << "a step without its element is never played blind";

  // The default place is a private folder of the session, replayable from the same session.
  const Json started = call(tools, "record_trajectory_start");
  ASSERT_FALSE(started["isError"].get<bool>()) << text_of(started);
  EXPECT_TRUE(call(tools, "record_trajectory_start")["isError"].get<bool>()) << "one at a time";
  ASSERT_FALSE(call(tools, "press", {{"key", "back"}})["isError"].get<bool>());
  const std::string stopped = text_of(call(tools, "record_trajectory_stop"));
  const std::size_t to = stopped.find(" to ");
  const std::size_t end = stopped.find("trajectory.jsonl");
  ASSERT_NE(end, std::string::npos) << stopped;
  const std::string file = stopped.substr(to + 4, end + 16 - to - 4);
  EXPECT_TRUE(file.starts_with((work_.path() / "saved").string())) << file;
  const Json again = call(tools, "replay_trajectory", {{"file", file}});
  EXPECT_FALSE(again["isError"].get<bool>()) << text_of(again);
  EXPECT_NE(text_of(again).find("Replayed 1 action"), std::string::npos) << text_of(again);
}

}  // namespace
}  // namespace adbwire::mcp
