// Options of the agent surfaces shown from the CLI session and the MCP server as processes (the
// library's own tests are page_test's and device_test's): stealth taps (open --stealth, mcp
// --stealth, each with --seed) land in the element's clear area, away from its centre, the same
// for a seed; the MCP server's default device is $ANDROID_SERIAL, then $ADB_SERIAL; secrets from
// the sources hostile_host_test and keyring_test leave to the other surface (an environment
// variable of the MCP server, a 0600 file named by $ADBWIRE_SECRETS_FILE for a CLI session).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "integration/cli_host_fixture.hpp"
#include "integration/mcp_lines.hpp"

namespace adbwire {
namespace {

using Json = nlohmann::json;
using test::text_of;
using AgentSurfaces = test::CliHostTest;

// The points of the taps among events (input tap, or the dumper's one-finger touch in place).
std::vector<std::pair<int, int>> taps_in(const std::vector<std::string>& events, std::size_t from) {
  std::vector<std::pair<int, int>> points;
  for (std::size_t i = from; i < events.size(); ++i) {
    int x = 0;
    int y = 0;
    int x2 = 0;
    int y2 = 0;
    if (std::sscanf(events[i].c_str(), "input tap %d %d", &x, &y) == 2 ||
        (std::sscanf(events[i].c_str(), "dumper touch 1 finger 0 ms: %d,%d -> %d,%d", &x, &y, &x2,
                     &y2) == 4 &&
         x == x2 && y == y2)) {
      points.emplace_back(x, y);
    }
  }
  return points;
}

// "Add item" on the demo list: [42,2164][1038,2290], its centre 540,2227, ref 5.
void expect_in_add_item(const std::vector<std::pair<int, int>>& points) {
  ASSERT_EQ(points.size(), 3u);
  for (const auto& [x, y] : points) {
    EXPECT_GE(x, 42);
    EXPECT_LT(x, 1038);
    EXPECT_GE(y, 2164);
    EXPECT_LT(y, 2290);
  }
  EXPECT_NE(points[0], std::make_pair(540, 2227)) << "a stealth tap at the exact centre";
}

TEST_F(AgentSurfaces, McpStealthTapsLandInTheElementAndRepeatForASeed) {
  std::vector<std::pair<std::string, Json>> calls;
  for (int i = 0; i < 3; ++i) {
    calls.push_back({"snapshot", Json::object()});
    calls.push_back({"tap", {{"ref", 5}}});
    calls.push_back({"back", Json::object()});
  }
  const auto taps = [&](const std::string& seed) {
    const std::size_t from = vd_->events().size();
    const test::ProcessResult server =
        adbwire({"mcp", "--stealth", "--seed", seed, vd_->target()}, {}, test::tools_calls(calls));
    EXPECT_EQ(server.exit_code, 0) << server.err;
    for (const Json& result : test::tool_results(server.out, calls.size()))
      EXPECT_FALSE(result.value("isError", true)) << result;
    return taps_in(vd_->events(), from);
  };
  const std::vector<std::pair<int, int>> first = taps("11");
  expect_in_add_item(first);
  EXPECT_EQ(taps("11"), first);
  EXPECT_NE(taps("12"), first);
}

TEST_F(AgentSurfaces, CliSessionStealthTapsLandInTheElementAndRepeatForASeed) {
  const auto taps = [&](const std::string& seed) {
    const std::size_t from = vd_->events().size();
    EXPECT_EQ(adbwire({"open", "--stealth", "--seed", seed, vd_->target()}).exit_code, 0);
    for (int i = 0; i < 3; ++i) {
      for (const std::vector<std::string>& words :
           std::vector<std::vector<std::string>>{{"snapshot"}, {"tap", "5"}, {"back"}}) {
        const test::ProcessResult step = adbwire(words);
        EXPECT_EQ(step.exit_code, 0) << words[0] << ": " << step.out << step.err;
      }
    }
    EXPECT_EQ(adbwire({"close"}).exit_code, 0);
    return taps_in(vd_->events(), from);
  };
  const std::vector<std::pair<int, int>> first = taps("11");
  expect_in_add_item(first);
  EXPECT_EQ(taps("11"), first);
  EXPECT_NE(taps("12"), first);
  adbwire({"kill-server"});
}

TEST_F(AgentSurfaces, McpDefaultDeviceIsAndroidSerialThenAdbSerial) {
  const std::vector<std::pair<std::string, Json>> calls = {{"snapshot", Json::object()}};
  const auto first_reply = [&](const std::vector<std::string>& serials) {
    const test::ProcessResult server = adbwire({"mcp"}, serials, test::tools_calls(calls));
    EXPECT_EQ(server.exit_code, 0) << server.err;
    return test::tool_results(server.out, 1)[0];
  };
  const Json adb_serial = first_reply({"ADB_SERIAL=" + vd_->target()});
  EXPECT_FALSE(adb_serial.value("isError", true)) << adb_serial;
  EXPECT_NE(text_of(adb_serial).find("\"Add item\""), std::string::npos) << adb_serial;
  // Both set: ANDROID_SERIAL wins (ADB_SERIAL names a port nothing listens on).
  const Json both = first_reply({"ANDROID_SERIAL=" + vd_->target(), "ADB_SERIAL=tcp:127.0.0.1:1"});
  EXPECT_FALSE(both.value("isError", true)) << both;
  // Neither: the error says how to name a device.
  const Json neither = first_reply({});
  EXPECT_TRUE(neither.value("isError", false)) << neither;
  EXPECT_NE(text_of(neither).find("ANDROID_SERIAL"), std::string::npos) << neither;
}

// Whether a command the device ran held value.
bool device_got(const VirtualDevice& vd, const std::string& value) {
  const std::vector<std::string> events = vd.events();
  return std::any_of(events.begin(), events.end(),
                     [&](const std::string& e) { return e.find(value) != std::string::npos; });
}

TEST_F(AgentSurfaces, McpTypesASecretOfItsEnvironmentAndACliSessionOneOfItsSecretsFile) {
  const std::string from_env = "Env7-mcp_secret";
  // The MCP server leaves the form open with its field filled; the session types over it.
  const std::vector<std::pair<std::string, Json>> calls = {
      {"secrets", Json::object()},
      {"tap", {{"text", "Add item"}}},
      {"type", {{"id", "name"}, {"secret", "pin"}}},
  };
  const test::ProcessResult server =
      adbwire({"mcp", vd_->target()}, {"ADBWIRE_SECRET_pin=" + from_env}, test::tools_calls(calls));
  ASSERT_EQ(server.exit_code, 0) << server.err;
  const std::vector<Json> results = test::tool_results(server.out, calls.size());
  EXPECT_NE(text_of(results[0]).find("pin\n"), std::string::npos) << results[0];
  EXPECT_NE(text_of(results[2]).find("Typed the secret pin"), std::string::npos) << results[2];
  EXPECT_TRUE(device_got(*vd_, from_env));
  EXPECT_EQ((server.out + server.err).find(from_env), std::string::npos);

  const std::string from_file = "Fi1e-cli_secret";
  const std::filesystem::path file = dir_.path() / "secrets";
  std::ofstream(file) << "bank_pin=" << from_file << "\n";
  ::chmod(file.c_str(), 0600);
  const std::vector<std::string> with_file = {"ADBWIRE_SECRETS_FILE=" + file.string()};
  std::string said;
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"open", vd_->target()},
           {"secrets"},
           {"type", "--id", "name", "--secret", "bank_pin", "--clear"},
           {"snapshot", "--print"},
           {"close"}}) {
    const test::ProcessResult step = adbwire(words, with_file);
    EXPECT_EQ(step.exit_code, 0) << words[0] << ": " << step.out << step.err;
    said += step.out + step.err;
  }
  EXPECT_NE(said.find("bank_pin"), std::string::npos) << said;
  EXPECT_NE(said.find("Typed the secret bank_pin"), std::string::npos) << said;
  EXPECT_NE(said.find("<secret bank_pin>"), std::string::npos) << said;
  EXPECT_TRUE(device_got(*vd_, from_file));
  EXPECT_EQ(said.find(from_file), std::string::npos) << said;
  adbwire({"kill-server"});
}

}  // namespace
}  // namespace adbwire
