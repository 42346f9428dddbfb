// Authentication as adb users meet it, against virtual devices that answer late, refuse or hang
// up: `adbwire devices` probes, --auth-timeout, the key made in an empty HOME (read back by the
// real adb), and --record on devices decoded by tshark.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"
#include "replay/tshark_check.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kWait = std::chrono::seconds(30);

unsigned mode_of(const fs::path& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 07777;
}

// A HOME with a host key already made (generation takes a moment on a loaded machine), and a
// device that asks for authentication and knows no key yet.
class AuthCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(home() / ".android");
    key_ = std::make_unique<PrivateKey>(PrivateKey::generate());
    key_->save(home() / ".android" / "adbkey", "auth@test");
    device_options_.auth_required = true;
    device_options_.keys_file = dir_.path() / "adb_keys";
  }

  fs::path home() const { return dir_.path() / "home"; }
  std::vector<std::string> env() const { return {"HOME=" + home().string(), "LOGNAME=auth"}; }

  test::ProcessResult adbwire(std::vector<std::string> args) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(std::move(args), env(), {}, kWait);
  }

  std::string keys_file_text() const { return test::read_file(device_options_.keys_file); }

  test::TempDir dir_;
  std::unique_ptr<PrivateKey> key_;
  VirtualDeviceOptions device_options_;
};

TEST_F(AuthCli, ProbeNeverOffersTheKeyUnlessAsked) {
  device_options_.accept_new_keys = true;
  device_options_.auth_delay = 150ms;
  VirtualDevice vd(device_options_);
  vd.start();
  const test::ProcessResult quiet = adbwire({"devices", vd.target()});
  EXPECT_NE(quiet.out.find(vd.target().substr(4) + "\tunauthorized\n"), std::string::npos)
      << quiet.out;
  EXPECT_NE(quiet.err.find(key_->fingerprint()), std::string::npos) << quiet.err;
  EXPECT_EQ(keys_file_text(), "") << "a probe offered the key: a phone would have shown a prompt";
}

TEST_F(AuthCli, OfferedKeyAcceptedAfterAShortDelayShowsAsDevice) {
  device_options_.accept_new_keys = true;
  device_options_.auth_delay = 150ms;
  VirtualDevice vd(device_options_);
  vd.start();
  const test::ProcessResult offered = adbwire({"devices", "--offer-key", vd.target()});
  EXPECT_EQ(offered.exit_code, 0) << offered.err;
  EXPECT_NE(offered.out.find(vd.target().substr(4) + "\tdevice\n"), std::string::npos)
      << offered.out;
  EXPECT_NE(keys_file_text().find(key_->public_key_line("").substr(0, 100)), std::string::npos);
  // Known now: the next probe signs and is let in, offering nothing.
  const test::ProcessResult known = adbwire({"devices", vd.target()});
  EXPECT_NE(known.out.find(vd.target().substr(4) + "\tdevice\n"), std::string::npos) << known.out;
}

TEST_F(AuthCli, GraceShorterThanTheDevicesAnswerIsUnauthorized) {
  device_options_.accept_new_keys = true;
  device_options_.auth_delay = 600ms;
  VirtualDevice vd(device_options_);
  vd.start();
  const test::ProcessResult late =
      adbwire({"devices", "--offer-key", "--grace", "0.1", vd.target()});
  EXPECT_NE(late.out.find(vd.target().substr(4) + "\tunauthorized\n"), std::string::npos)
      << late.out;
  EXPECT_NE(late.err.find("within 100 ms"), std::string::npos) << late.err;
}

TEST_F(AuthCli, DeviceThatHangsUpOnTheKeyIsUnauthorizedWithItsFingerprint) {
  device_options_.hang_up_on_refused_key = true;
  VirtualDevice vd(device_options_);
  vd.start();
  const test::ProcessResult probe = adbwire({"devices", "--offer-key", vd.target()});
  EXPECT_NE(probe.out.find(vd.target().substr(4) + "\tunauthorized\n"), std::string::npos)
      << probe.out;
  EXPECT_NE(probe.err.find("refused the RSA key fingerprint " + key_->fingerprint()),
            std::string::npos)
      << probe.err;

  const test::ProcessResult shell = adbwire({"-s", vd.target(), "shell", "true"});
  EXPECT_EQ(shell.exit_code, 1);
  EXPECT_NE(shell.err.find("hung up after this host offered its key"), std::string::npos)
      << shell.err;
  EXPECT_EQ(shell.err.find("device offline"), std::string::npos) << shell.err;

  ConnectOptions options;
  options.keys.android_dir = home() / ".android";
  std::error_code error;
  Device::connect(vd.target(), options, error);
  EXPECT_EQ(error, errc::unauthorized) << error.message();
}

TEST_F(AuthCli, AuthTimeoutShortensTheWaitForAPerson) {
  VirtualDevice vd(device_options_);  // never accepts: nobody answers the prompt
  vd.start();
  const test::ProcessResult run =
      adbwire({"--auth-timeout", "0.2", "-s", vd.target(), "shell", "true"});
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("within 200 ms: confirm the RSA key fingerprint " + key_->fingerprint()),
            std::string::npos)
      << run.err;
}

TEST_F(AuthCli, McpServerTakesItsOwnAuthTimeout) {
  VirtualDevice vd(device_options_);  // never accepts
  vd.start();
  const std::string requests =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"snapshot","arguments":{}}})"
      "\n";
  const test::ProcessResult run = test::run_process(
      {ADBWIRE_CLI_PATH, "mcp", "--auth-timeout", "0.3", vd.target()}, env(), requests, kWait);
  EXPECT_FALSE(run.timed_out);
  EXPECT_NE(run.out.find("within 300 ms: confirm the RSA key fingerprint " + key_->fingerprint()),
            std::string::npos)
      << run.out << run.err;
}

TEST(AuthKeys, FirstUseInAnEmptyHomeMakesAPrivateKeyThatAdbReads) {
  test::TempDir dir;
  const fs::path home = dir.path() / "home";
  fs::create_directories(home);
  ::chmod(home.c_str(), 0755);
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = dir.path() / "adb_keys";
  options.accept_new_keys = true;
  VirtualDevice vd(options);
  vd.start();
  const test::ProcessResult run =
      test::run_process({ADBWIRE_CLI_PATH, "-s", vd.target(), "shell", "echo", "in"},
                        {"HOME=" + home.string(), "LOGNAME=first", "HOSTNAME=use"}, {}, kWait);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "in\n");
  const fs::path android = home / ".android";
  EXPECT_EQ(mode_of(android), 0700u);
  EXPECT_EQ(mode_of(android / "adbkey"), 0600u);
  // The real adb loads the private key with its own reader and derives the same public line.
  const std::string adb = test::find_adb();
  ASSERT_FALSE(adb.empty()) << "install Debian package adb (apt-get install adb)";
  const test::ProcessResult pubkey = test::run_process(
      {adb, "pubkey", (android / "adbkey").string()},
      {"HOME=" + dir.path().string(), "LOGNAME=first", "HOSTNAME=use"}, {}, kWait);
  EXPECT_EQ(pubkey.exit_code, 0) << pubkey.err;
  EXPECT_EQ(pubkey.out, test::read_file(android / "adbkey.pub") + "\n");
  EXPECT_EQ(test::read_file(options.keys_file), test::read_file(android / "adbkey.pub") + "\n");
}

TEST(AuthRecord, DevicesRecordsItsProbeAsACaptureTsharkDecodes) {
  ASSERT_TRUE(replay_test::have_tshark()) << replay_test::kInstallTshark;
  test::TempDir dir;
  VirtualDevice vd;
  vd.start();
  const fs::path capture = dir.path() / "devices.pcapng";
  const test::ProcessResult run =
      test::run_process({ADBWIRE_CLI_PATH, "--record", capture.string(), "devices", vd.target()},
                        {"HOME=" + dir.path().string()}, {}, kWait);
  EXPECT_NE(run.out.find(vd.target().substr(4) + "\tdevice\n"), std::string::npos)
      << run.out << run.err;
  const replay_test::Views views = replay_test::decode_both(capture);
  ASSERT_EQ(views.problem, "");
  // The probe's CNXN each way, as tshark and adbwire read them.
  ASSERT_EQ(views.ours.at(CaptureDirection::host_to_device).size(), 1u);
  ASSERT_EQ(views.ours.at(CaptureDirection::device_to_host).size(), 1u);
  EXPECT_EQ(views.ours.at(CaptureDirection::host_to_device)[0].substr(0, 10), "0x4e584e43");
  EXPECT_EQ(views.tshark, views.ours) << "tshark" << views.decode_as;

  const test::ProcessResult two = test::run_process(
      {ADBWIRE_CLI_PATH, "--record", capture.string(), "devices", vd.target(), vd.target()},
      {"HOME=" + dir.path().string()}, {}, kWait);
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_NE(two.err.find("exactly one"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace adbwire
