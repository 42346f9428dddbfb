// What the tests of the verbs through the MCP tools (DeviceTools) share: the tools' options for a
// virtual device, the text of a reply, and a fixture holding the keys, the work folder and a
// cancel token.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"
#include "mcp/device_tools.hpp"
#include "mcp/json_rpc.hpp"

namespace adbwire::mcp::testing_tools {

// Tools on device, with the host keys in keys and saved files under saved; no settle pause.
inline DeviceToolsOptions options_for(const VirtualDevice& device,
                                      const std::filesystem::path& keys,
                                      const std::filesystem::path& saved) {
  DeviceToolsOptions o;
  o.target = device.target();
  o.connect.keys.android_dir = keys;
  o.snapshot_dir = saved;
  o.verbs.settle = std::chrono::milliseconds(0);
  return o;
}

// The text blocks of a tools/call result, each followed by a line end.
inline std::string text_of(const Json& result) {
  std::string text;
  for (const Json& block : result["content"]) {
    if (block["type"] == "text") text += block["text"].get<std::string>() + "\n";
  }
  return text;
}

// A test of verbs through DeviceTools: host keys and saved files in folders of its own.
class ToolsTest : public ::testing::Test {
 protected:
  DeviceToolsOptions options_for(const VirtualDevice& device) const {
    return testing_tools::options_for(device, keys_.path(), work_.path() / "saved");
  }
  Json call(DeviceTools& tools, const std::string& name, Json arguments = Json::object()) {
    return tools.call(name, arguments, cancel_);
  }

  test::TempDir keys_;
  test::TempDir work_;
  CancelToken cancel_;
};

}  // namespace adbwire::mcp::testing_tools
