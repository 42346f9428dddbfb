// A device whose commands never stop printing (VirtualDeviceOptions::hostile_output = endless):
// every call that gathers a device's whole output (a UI dump, getprop, dumpsys, the package list,
// logcat -d) stops at the bound of its kind (OutputLimits) with limit_exceeded naming it, closes
// the stream and keeps the connection usable, through the library, the CLI, a session and the MCP
// server, with the peak memory measured. Before the bounds, the same device drove snapshot,
// getprop, the MCP server and the session daemon to 3 GB in 3 to 4 s.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "adbwire/apps.hpp"
#include "adbwire/device.hpp"
#include "adbwire/device_state.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/logcat.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/mcp_lines.hpp"
#include "integration/sanitizer.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Json = nlohmann::json;

// Peak RSS a process may reach while refusing endless output with the default bounds (the
// largest is 32 MiB of UI dump). Under AddressSanitizer its quarantine and shadow add to it.
long rss_bound_kib() { return (test::kAddressSanitizer ? 1024 : 256) * 1024; }

// The VmHWM (peak resident memory) of a running process, in KiB; 0 when unknown.
long peak_rss_kib(long pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6));
  }
  return 0;
}

class EndlessOutput : public ::testing::Test {
 protected:
  EndlessOutput() {
    VirtualDeviceOptions options;
    options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
    options.hostile_output = HostileOutput::endless;
    vd_.emplace(std::move(options));
    vd_->start();
    fs::create_directories(home());
    fs::create_directories(dir_.path() / "run");
    ::chmod((dir_.path() / "run").c_str(), 0700);
  }

  fs::path home() const { return dir_.path() / "home"; }
  std::vector<std::string> env() const {
    return {"HOME=" + home().string(), "XDG_RUNTIME_DIR=" + (dir_.path() / "run").string(),
            "PATH=/usr/bin:/bin", "ADBWIRE_NO_HOLDER=1"};
  }
  test::ProcessResult adbwire(std::vector<std::string> args, std::string_view input = {}) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(std::move(args), env(), input, 60s);
  }
  ConnectOptions connect_options() const {
    ConnectOptions options;
    options.keys.android_dir = home() / ".android";
    return options;
  }

  test::TempDir dir_;
  std::optional<VirtualDevice> vd_;
};

// The call fails with limit_exceeded naming OutputLimits::<bound> (call returns the detail),
// and the device still answers.
void expect_bounded(Device& device, std::string_view bound,
                    const std::function<std::string(std::error_code&)>& call) {
  std::error_code error;
  const std::string detail = call(error);
  EXPECT_EQ(error, errc::limit_exceeded) << bound << ": " << error.message();
  EXPECT_NE(detail.find("OutputLimits::" + std::string(bound)), std::string::npos) << detail;
  EXPECT_NE(detail.find("--max-output " + std::string(bound) + "="), std::string::npos) << detail;
  std::error_code after;
  EXPECT_EQ(device.shell("echo still here", kDefaultDeadline, after).out, "still here\n")
      << "after " << bound << ": " << after.message();
}

TEST_F(EndlessOutput, EveryGatheringCallStopsAtItsBoundAndTheConnectionStaysUsable) {
  ConnectOptions options = connect_options();
  options.limits.command = 1 << 20;
  options.limits.ui_dump = 2 << 20;
  options.limits.properties = 1 << 20;
  options.limits.packages = 1 << 20;
  options.limits.dumpsys = 1 << 20;
  options.limits.logcat = 4 << 20;
  Device device = Device::connect(vd_->target(), options);
  expect_bounded(device, "properties", [&](std::error_code& e) {
    getprops(device, kDefaultDeadline, e);
    return last_error_detail();
  });
  expect_bounded(device, "packages", [&](std::error_code& e) {
    list_packages(device, kDefaultDeadline, e);
    return last_error_detail();
  });
  expect_bounded(device, "dumpsys", [&](std::error_code& e) {
    foreground_activity(device, kDefaultDeadline, e);
    return last_error_detail();
  });
  expect_bounded(device, "command", [&](std::error_code& e) {
    const ShellResult result = device.shell("dumpsys window", kDefaultDeadline, e);
    EXPECT_LE(result.out.size() + result.err.size(), std::size_t{1} << 20);
    return last_error_detail();
  });
  expect_bounded(device, "command", [&](std::error_code& e) {
    EXPECT_LE(device.exec("getprop", kDefaultDeadline, e).size(), std::size_t{1} << 20);
    return last_error_detail();
  });
  expect_bounded(device, "command", [&](std::error_code& e) {
    Stream stream = device.open("exec:pm list packages", kDefaultDeadline, e);
    if (!e) stream.read_all(kDefaultDeadline, e);
    return last_error_detail();
  });
  expect_bounded(device, "logcat", [&](std::error_code& e) {
    LogcatOptions dump;
    dump.dump = true;
    dump.ring_capacity = 10;
    Logcat logcat = Logcat::start(device, dump, nullptr, kDefaultDeadline, e);
    if (e) return last_error_detail();
    EXPECT_TRUE(logcat.wait(deadline_after(30s)));
    e = logcat.error();
    return logcat.error_detail();
  });
  Page page = Page::connect(vd_->target(), PageOptions{}, options);
  std::error_code error;
  page.snapshot(kDefaultDeadline, error);
  EXPECT_EQ(error, errc::limit_exceeded) << page.last_error();
  EXPECT_NE(page.last_error().find("OutputLimits::ui_dump"), std::string::npos)
      << page.last_error();
  EXPECT_EQ(page.device().shell("echo page", kDefaultDeadline, error).out, "page\n");
}

// The CLI with its default bounds: an error naming the bound, the memory that took, and the
// option that raises a bound.
TEST_F(EndlessOutput, TheCliStopsAtTheDefaultBoundsWithBoundedMemory) {
  struct Case {
    std::vector<std::string> args;
    std::string bound;
  };
  const std::vector<Case> cases = {
      {{"getprop"}, "properties"},
      {{"logcat", "-d"}, "logcat"},
      {{"snapshot"}, "ui_dump"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"-s", vd_->target()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto start = std::chrono::steady_clock::now();
    const test::ProcessResult run = adbwire(args);
    EXPECT_FALSE(run.timed_out) << c.bound;
    EXPECT_EQ(run.exit_code, 1) << c.bound << ": " << run.err;
    EXPECT_NE(run.err.find("OutputLimits::" + c.bound), std::string::npos) << run.err;
    EXPECT_LT(run.max_rss_kib, rss_bound_kib()) << c.bound << ": peak RSS " << run.max_rss_kib;
    RecordProperty("cli_" + c.bound + "_peak_rss_kib", std::to_string(run.max_rss_kib));
    RecordProperty("cli_" + c.bound + "_ms",
                   std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::steady_clock::now() - start)
                                      .count()));
  }
  const test::ProcessResult smaller =
      adbwire({"--max-output", "properties=1M", "-s", vd_->target(), "getprop"});
  EXPECT_EQ(smaller.exit_code, 1);
  EXPECT_NE(smaller.err.find("more than 1 MiB (OutputLimits::properties)"), std::string::npos)
      << smaller.err;
  const test::ProcessResult typo =
      adbwire({"--max-output", "propertys=1M", "-s", vd_->target(), "getprop"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("KIND one of command, ui_dump"), std::string::npos) << typo.err;
}

// The error a verb gives for endless output: its bound, or for logs the 10 s it waits for the
// dump to end, which a slow build (a sanitizer's) reaches before the 64 MiB.
bool bounded_error(const std::string& verb, const std::string& text) {
  return text.find("OutputLimits::") != std::string::npos ||
         (verb == "logs" && text.find("was still sending after 10 s") != std::string::npos);
}

// A session's daemon and the MCP server keep serving after each bounded call, and their memory
// stays bounded across all of them.
TEST_F(EndlessOutput, ASessionAndTheMcpServerStayBoundedAndUsable) {
  ASSERT_EQ(adbwire({"open", vd_->target()}).exit_code, 0);
  for (const std::vector<std::string>& verb :
       {std::vector<std::string>{"snapshot"}, {"apps"}, {"foreground"}, {"logs"}}) {
    const test::ProcessResult run = adbwire(verb);
    EXPECT_EQ(run.exit_code, 1) << verb[0] << ": " << run.out << run.err;
    EXPECT_TRUE(bounded_error(verb[0], run.err)) << verb[0] << ": " << run.err;
  }
  const test::ProcessResult date = adbwire({"date"});
  EXPECT_EQ(date.exit_code, 0) << date.err;
  EXPECT_NE(date.out.find("The device's clock"), std::string::npos) << date.out;
  const test::ProcessResult sessions = adbwire({"sessions"});  // "default TARGET PID SOCKET"
  std::istringstream words(sessions.out);
  std::string name, target;
  long pid = 0;
  words >> name >> target >> pid;
  const long daemon_kib = peak_rss_kib(pid);
  EXPECT_GT(daemon_kib, 0) << sessions.out;
  EXPECT_LT(daemon_kib, rss_bound_kib()) << "session daemon peak RSS " << daemon_kib << " KiB";
  RecordProperty("session_daemon_peak_rss_kib", std::to_string(daemon_kib));
  EXPECT_EQ(adbwire({"close"}).exit_code, 0);

  const std::vector<std::string> tools = {"snapshot", "apps", "foreground", "logs", "date"};
  std::vector<std::pair<std::string, Json>> calls;
  for (const std::string& tool : tools) calls.emplace_back(tool, Json::object());
  const test::ProcessResult mcp = adbwire({"mcp", vd_->target()}, test::tools_calls(calls));
  EXPECT_EQ(mcp.exit_code, 0) << mcp.err;
  const std::vector<Json> results = test::tool_results(mcp.out, tools.size());
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string text = test::text_of(results[i]);
    if (tools[i] == "date") {
      EXPECT_FALSE(results[i].value("isError", true)) << text;
    } else {
      EXPECT_TRUE(results[i].value("isError", false)) << tools[i] << ": " << text;
      EXPECT_TRUE(bounded_error(tools[i], text)) << tools[i] << ": " << text;
    }
  }
  EXPECT_LT(mcp.max_rss_kib, rss_bound_kib()) << "MCP server peak RSS " << mcp.max_rss_kib;
  RecordProperty("mcp_peak_rss_kib", std::to_string(mcp.max_rss_kib));
}

}  // namespace
}  // namespace adbwire
