// A test that runs the adbwire CLI as a process against the virtual device showing the demo app:
// HOME and the runtime folder in a temporary folder of its own, a bare PATH, no device holder.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire::test {

class CliHostTest : public ::testing::Test {
 protected:
  CliHostTest() {
    VirtualDeviceOptions options;
    options.screens = std::filesystem::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
    vd_.emplace(std::move(options));
    vd_->start();
    std::filesystem::create_directories(home() / ".android");
    std::filesystem::create_directories(run());
    ::chmod(run().c_str(), 0700);
  }

  std::filesystem::path home() const { return dir_.path() / "home"; }
  std::filesystem::path run() const { return dir_.path() / "run"; }
  std::vector<std::string> env(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> all = {"HOME=" + home().string(), "XDG_RUNTIME_DIR=" + run().string(),
                                    "PATH=/usr/bin:/bin", "ADBWIRE_NO_HOLDER=1"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  // `adbwire args…` in that environment plus extra_env, input on its stdin, at most 60 s.
  ProcessResult adbwire(std::vector<std::string> args,
                        const std::vector<std::string>& extra_env = {},
                        std::string_view input = {}) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return run_process(std::move(args), env(extra_env), input, std::chrono::seconds(60));
  }

  TempDir dir_;
  std::optional<VirtualDevice> vd_;
};

}  // namespace adbwire::test
