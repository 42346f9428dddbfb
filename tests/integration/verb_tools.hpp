// The verbs as `adbwire mcp`'s worker serves them, on a virtual device, for tests of replies.
#pragma once

#include <chrono>
#include <filesystem>

#include "adbwire/testing/vdevice.hpp"
#include "mcp/device_tools.hpp"

namespace adbwire::test {

// Tools on device with keys and saved files in folders of the test, no settle pause after actions.
inline mcp::DeviceToolsOptions verb_tools_options(const VirtualDevice& device,
                                                  const std::filesystem::path& keys,
                                                  const std::filesystem::path& work) {
  mcp::DeviceToolsOptions o;
  o.target = device.target();
  o.connect.keys.android_dir = keys;
  o.snapshot_dir = work / "files";
  o.verbs.settle = std::chrono::milliseconds(0);
  return o;
}

}  // namespace adbwire::test
