// What the tests of the verbs through the MCP tools (DeviceTools) share: the tools' options for a
// virtual device, and the text of a reply.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "adbwire/testing/vdevice.hpp"
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

}  // namespace adbwire::mcp::testing_tools
