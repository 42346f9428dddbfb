// adbwire through a real adb server (Debian's adb, private port) to the virtual device,
// which that server reached with `adb connect`. The Device suite runs the same bodies over
// the server: target and the direct tcp: target, because the API is the same.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "vdevice/sample_screen.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

constexpr auto kEventTimeout = 20s;

// A virtual device the private adb server is connected to.
class ServerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_.start(), "");
    device_.emplace();
    device_->start();
    serial_ = "127.0.0.1:" + std::to_string(device_->port());
    ASSERT_EQ(server_.connect_and_wait(serial_), "");
  }

  void TearDown() override {
    if (device_) device_->stop();
  }

  ServerAddress address() const { return ServerAddress{"127.0.0.1", server_.port()}; }
  std::string server_target() const {
    return "server:127.0.0.1:" + std::to_string(server_.port()) + "/" + serial_;
  }

  test::AdbServerProcess server_;
  std::optional<VirtualDevice> device_;
  std::string serial_;
};

// ---- one Device suite, two paths

enum class Path { server, direct };

class DeviceOverBothPaths : public ServerFixture, public ::testing::WithParamInterface<Path> {
 protected:
  Device connect() {
    return Device::connect(GetParam() == Path::server ? server_target() : "tcp:" + serial_);
  }
};

TEST_P(DeviceOverBothPaths, ShellSeparatesStreamsAndReportsExitCodes) {
  Device device = connect();
  ASSERT_TRUE(device.has_feature("shell_v2"));
  const ShellResult hello = device.shell("echo hello; echo oops >&2");
  EXPECT_EQ(hello.out, "hello\n");
  EXPECT_EQ(hello.err, "oops\n");
  EXPECT_EQ(hello.exit_code, 0);
  EXPECT_EQ(device.shell("exit 3").exit_code, 3);
  EXPECT_EQ(device.shell("no_such_tool").exit_code, 127);
}

TEST_P(DeviceOverBothPaths, ExecOutBinaryBytesAreExact) {
  Device device = connect();
  const std::string png = device.exec("screencap -p");
  const auto expected = vdevice::SampleScreen::instance().png_bytes();
  ASSERT_EQ(png.size(), expected.size());
  EXPECT_TRUE(png == std::string(expected.begin(), expected.end())) << "PNG bytes differ";
}

TEST_P(DeviceOverBothPaths, LargeOutputStreamsCompletely) {
  Device device = connect();
  constexpr std::size_t kSize = 16 * 1024 * 1024 + 7;
  std::size_t received = 0;
  bool all_zero = true;
  device.exec("head -c " + std::to_string(kSize) + " /dev/zero",
              [&](std::span<const std::uint8_t> chunk) {
                received += chunk.size();
                for (const std::uint8_t byte : chunk) all_zero = all_zero && byte == 0;
              });
  EXPECT_EQ(received, kSize);
  EXPECT_TRUE(all_zero);
}

TEST_P(DeviceOverBothPaths, ParallelCommandsShareOneDevice) {
  Device device = connect();
  constexpr int kThreads = 4;
  std::vector<std::string> outputs(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      outputs[static_cast<std::size_t>(i)] = device.shell("echo " + std::to_string(i)).out;
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(outputs[static_cast<std::size_t>(i)], std::to_string(i) + "\n");
}

TEST_P(DeviceOverBothPaths, StdinReachesTheCommandThroughARawStream) {
  Device device = connect();
  Stream stream = device.open("exec:cat");
  const std::string text = "through the stream\n";
  stream.write(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()),
                                             text.size()));
  std::string echoed;
  std::uint8_t buffer[256];
  while (echoed.size() < text.size()) {
    const std::size_t n = stream.read_some(buffer);
    ASSERT_GT(n, 0u);
    echoed.append(reinterpret_cast<const char*>(buffer), n);
  }
  EXPECT_EQ(echoed, text);
}

TEST_P(DeviceOverBothPaths, PassedDeadlineIsATimeoutAndTheDeviceStaysUsable) {
  Device device = connect();
  std::error_code error;
  device.shell("sleep 30", deadline_after(300ms), error);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_EQ(device.shell("echo after").out, "after\n");
}

TEST_P(DeviceOverBothPaths, CloseWakesABlockedCommand) {
  Device device = connect();
  std::error_code error;
  std::thread waiting([&] { device.shell("sleep 60", kNoDeadline, error); });
  std::this_thread::sleep_for(200ms);
  device.close();
  waiting.join();
  EXPECT_TRUE(error == errc::closed || error == errc::device_offline) << error.message();
  std::error_code later;
  device.shell("true", kDefaultDeadline, later);
  EXPECT_TRUE(later) << "a closed Device still ran a command";
}

TEST_P(DeviceOverBothPaths, RefusedServiceIsNotSupported) {
  Device device = connect();
  std::error_code error;
  device.open("no-such-service:", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_EQ(device.shell("echo alive").out, "alive\n");
}

TEST_P(DeviceOverBothPaths, PushThenPullGivesTheSameBytes) {
  Device device = connect();
  const std::filesystem::path local = server_.temp() / "local";
  std::filesystem::create_directories(local);
  std::string data(3 * 1024 * 1024 + 11, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 % 251);
  std::ofstream(local / "up.bin", std::ios::binary)
      .write(data.data(), static_cast<std::streamsize>(data.size()));

  SyncClient sync(device);
  sync.push(local / "up.bin", "/data/local/tmp/up.bin");
  EXPECT_EQ(sync.stat("/data/local/tmp/up.bin").size, data.size());
  sync.pull("/data/local/tmp/up.bin", local / "down.bin");
  EXPECT_TRUE(test::read_file(local / "down.bin") == data)
      << "pulled bytes differ from pushed ones";
  EXPECT_TRUE(test::read_file(device_->root() / "data/local/tmp/up.bin") == data);
}

TEST_P(DeviceOverBothPaths, BannerNamesTheDevice) {
  Device device = connect();
  EXPECT_EQ(device.serial(), serial_);
  EXPECT_EQ(device.banner().property("ro.product.model"), "adbwire_virtual");
  EXPECT_TRUE(device.banner().has_feature("shell_v2"));
}

INSTANTIATE_TEST_SUITE_P(Paths, DeviceOverBothPaths, ::testing::Values(Path::server, Path::direct),
                         [](const ::testing::TestParamInfo<Path>& info) {
                           return info.param == Path::server ? "ThroughServer" : "DirectTcp";
                         });

// ---- the server's own services

using AdbServerTest = ServerFixture;

TEST_F(AdbServerTest, VersionIsWhatAdbReports) {
  const test::ProcessResult adb_version = server_.adb({"version"});
  const std::string prefix = "Android Debug Bridge version 1.0.";
  ASSERT_TRUE(adb_version.out.starts_with(prefix)) << adb_version.out;
  const int expected = std::atoi(adb_version.out.c_str() + prefix.size());
  EXPECT_EQ(AdbServer(address()).version(), expected);
}

// A host name goes through the resolver; an address literal skips it (asio's async lookup
// costs a thread start per command). Both must reach the same server.
TEST_F(AdbServerTest, AHostNameAndAnAddressReachTheSameServer) {
  const int by_address = AdbServer(address()).version();
  EXPECT_EQ(AdbServer(ServerAddress{"localhost", server_.port()}).version(), by_address);
  try {
    AdbServer(ServerAddress{"no-such-host.invalid", server_.port()}).version();
    FAIL() << "a host that cannot exist resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot resolve adb server host 'no-such-host.invalid'"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(AdbServerTest, DevicesListMatchesAdbDevices) {
  const AdbServer server(address());
  const auto entries = server.devices(true);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].serial, serial_);
  EXPECT_EQ(entries[0].state, protocol::DeviceState::device);
  EXPECT_EQ(entries[0].model, "adbwire_virtual");
  ASSERT_TRUE(entries[0].transport_id.has_value());
  EXPECT_EQ("List of devices attached\n" +
                protocol::format_device_list(server.devices(false), false) + "\n",
            server_.adb({"devices"}).out);
  EXPECT_NE(server_.adb({"devices", "-l"})
                .out.find("transport_id:" + std::to_string(*entries[0].transport_id)),
            std::string::npos);
}

TEST_F(AdbServerTest, FeaturesAreTheDevicesFeatures) {
  const auto features = AdbServer(address()).features(serial_);
  EXPECT_NE(std::find(features.begin(), features.end(), "shell_v2"), features.end());
  std::error_code error;
  AdbServer(address()).features("no-such-serial", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);
}

TEST_F(AdbServerTest, TrackDevicesSeesDisconnectAndConnect) {
  const AdbServer server(address());
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<protocol::DeviceChange> changes;
  std::size_t updates = 0;
  std::stop_source stop;
  std::error_code track_error;
  std::thread tracker([&] {
    server.track_devices(
        [&](const protocol::DeviceListUpdate& update) {
          std::lock_guard lock(mutex);
          ++updates;
          changes.insert(changes.end(), update.changes.begin(), update.changes.end());
          changed.notify_all();
          return true;
        },
        stop.get_token(), kNoDeadline, track_error);
  });
  auto wait_for_change = [&](protocol::DeviceChange::Kind kind, std::size_t from) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, kEventTimeout, [&] {
      for (std::size_t i = from; i < changes.size(); ++i) {
        if (changes[i].kind == kind && changes[i].entry.serial == serial_) return true;
      }
      return false;
    });
  };
  auto seen = [&] {
    std::lock_guard lock(mutex);
    return changes.size();
  };

  EXPECT_TRUE(wait_for_change(protocol::DeviceChange::Kind::added, 0))
      << "the first list lacks the device";
  std::size_t before = seen();
  server_.adb({"disconnect", serial_});
  EXPECT_TRUE(wait_for_change(protocol::DeviceChange::Kind::removed, before)) << "no removal seen";
  before = seen();
  server_.adb({"connect", serial_});
  EXPECT_TRUE(wait_for_change(protocol::DeviceChange::Kind::added, before)) << "no addition seen";

  stop.request_stop();
  tracker.join();
  EXPECT_FALSE(track_error) << track_error.message();
  EXPECT_GE(updates, 3u);
}

TEST_F(AdbServerTest, ConnectDisconnectAndWaitFor) {
  const AdbServer server(address());
  EXPECT_NE(server.disconnect(serial_).find(serial_), std::string::npos);
  EXPECT_TRUE(server.devices().empty());
  std::error_code error;
  server.disconnect(serial_, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_found);

  const std::string reply = server.connect("127.0.0.1", device_->port());
  EXPECT_EQ(reply, "connected to " + serial_);
  server.wait_for(serial_, WaitState::device, WaitTransport::any, deadline_after(kEventTimeout));
  EXPECT_EQ(Device::connect(server_target()).shell("echo back").out, "back\n");

  server.connect("127.0.0.1", test::free_port(), kDefaultDeadline, error);
  EXPECT_EQ(error, errc::connection_refused);
}

TEST_F(AdbServerTest, WaitForPassesItsDeadlineAsATimeout) {
  std::error_code error;
  AdbServer(address()).wait_for(serial_, WaitState::recovery, WaitTransport::any,
                                deadline_after(300ms), error);
  EXPECT_EQ(error, errc::timeout);
}

TEST_F(AdbServerTest, ForwardListAndRemove) {
  const AdbServer server(address());
  const std::uint16_t port = server.forward(serial_, "tcp:0", "tcp:5555");
  EXPECT_GT(port, 0);
  const auto forwards = server.list_forward();
  ASSERT_EQ(forwards.size(), 1u);
  EXPECT_EQ(forwards[0],
            (protocol::ForwardEntry{serial_, "tcp:" + std::to_string(port), "tcp:5555"}));
  EXPECT_NE(server_.adb({"forward", "--list"}).out.find("tcp:" + std::to_string(port)),
            std::string::npos);

  std::error_code error;
  server.forward(serial_, "tcp:" + std::to_string(port), "tcp:6000", true, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed) << "norebind accepted a second forward of the same port";

  server.kill_forward(serial_, "tcp:" + std::to_string(port));
  EXPECT_TRUE(server.list_forward().empty());
}

TEST_F(AdbServerTest, ReverseRulesGoThroughTheServerToTheDevice) {
  AdbServer server(address());
  EXPECT_TRUE(server.list_reverse(serial_).empty());
  server.reverse(serial_, "tcp:6100", "tcp:7100");
  const auto rules = server.list_reverse(serial_);
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules[0].local, "tcp:6100");
  EXPECT_EQ(rules[0].remote, "tcp:7100");
  server.kill_reverse(serial_, "tcp:6100");
  EXPECT_TRUE(server.list_reverse(serial_).empty());
}

TEST_F(AdbServerTest, UnknownSerialIsNotFound) {
  try {
    Device::connect("server:127.0.0.1:" + std::to_string(server_.port()) + "/no-such-serial");
    FAIL() << "connected to a device the server does not have";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found) << e.what();
    EXPECT_NE(std::string(e.what()).find("no-such-serial"), std::string::npos) << e.what();
  }
}

TEST_F(AdbServerTest, DeviceFailsOnceTheServerLosesIt) {
  Device device = Device::connect(server_target());
  ASSERT_EQ(device.shell("echo one").out, "one\n");
  server_.adb({"disconnect", serial_});
  server_.adb({"connect", serial_});
  std::error_code error;
  device.shell("echo two", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::device_offline) << "a reconnected device was used as if nothing happened";
}

TEST_F(AdbServerTest, CliDevicesListsServerAndDirectTargets) {
  const test::ProcessResult run = test::run_process(
      {ADBWIRE_CLI_PATH, "-P", std::to_string(server_.port()), "devices", "-l", "tcp:" + serial_},
      server_.env(), {});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // adb's format (issue 30): the server's row, and the direct target it already lists not again.
  EXPECT_EQ(run.out.rfind("List of devices attached\n", 0), 0u) << run.out;
  const std::string padded =
      serial_ + std::string(serial_.size() < 22 ? 22 - serial_.size() : 0, ' ');
  EXPECT_NE(run.out.find(padded + " device product:"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(serial_), run.out.rfind(serial_)) << "one row per device: " << run.out;
  EXPECT_NE(run.out.find("model:adbwire_virtual"), std::string::npos) << run.out;
  EXPECT_TRUE(run.out.ends_with("\n\n")) << run.out;
}

TEST_F(AdbServerTest, KillEndsTheServer) {
  AdbServer(address()).kill();
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + kEventTimeout;
  pid_t reaped = 0;
  while ((reaped = ::waitpid(server_.pid(), &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(reaped, server_.pid()) << "the adb server did not exit after host:kill";
}

TEST_F(AdbServerTest, TwoServersInOneProcess) {
  test::AdbServerProcess second;
  ASSERT_EQ(second.start(), "");
  ASSERT_EQ(second.connect_and_wait(serial_), "");
  Device first_path = Device::connect(server_target());
  Device second_path =
      Device::connect("server:127.0.0.1:" + std::to_string(second.port()) + "/" + serial_);
  EXPECT_EQ(first_path.shell("echo one").out, "one\n");
  EXPECT_EQ(second_path.shell("echo two").out, "two\n");
  EXPECT_EQ(first_path.connection_info().target, server_target());
  EXPECT_EQ(AdbServer({"127.0.0.1", second.port()}).devices().size(), 1u);
}

// ---- no server at all

TEST(NoAdbServer, RefusalSaysHowToStartOneAndNamesTheDirectPath) {
  const ServerAddress nobody{"127.0.0.1", test::free_port()};
  for (int i = 0; i < 2; ++i) {
    try {
      if (i == 0) {
        AdbServer(nobody).devices();
      } else {
        Device::connect("server:127.0.0.1:" + std::to_string(nobody.port) + "/emulator-5554");
      }
      FAIL() << "something answered on a free port";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::connection_refused);
      const std::string what = e.what();
      EXPECT_NE(what.find("no adb server at 127.0.0.1:" + std::to_string(nobody.port)),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("adb start-server"), std::string::npos) << what;
      EXPECT_NE(what.find("-s tcp:HOST:PORT"), std::string::npos) << what;
    }
  }
}

TEST(ServerAddressResolution, OptionsThenSocketVariableThenPortVariableThenDefault) {
  ::unsetenv("ADB_SERVER_SOCKET");
  ::unsetenv("ANDROID_ADB_SERVER_PORT");
  ServerAddress address = resolve_server_address({});
  EXPECT_EQ(address.host, "127.0.0.1");
  EXPECT_EQ(address.port, 5037);

  ::setenv("ANDROID_ADB_SERVER_PORT", "5999", 1);
  EXPECT_EQ(resolve_server_address({}).port, 5999);
  ::setenv("ADB_SERVER_SOCKET", "tcp:rig7:6000", 1);
  address = resolve_server_address({});
  EXPECT_EQ(address.host, "rig7");
  EXPECT_EQ(address.port, 6000);
  address = resolve_server_address({"rig9", 0});
  EXPECT_EQ(address.host, "rig9");
  EXPECT_EQ(address.port, 5999);
  address = resolve_server_address({"rig9", 7000});
  EXPECT_EQ(to_string(address), "rig9:7000");

  ::setenv("ADB_SERVER_SOCKET", "localfilesystem:/tmp/x", 1);
  std::error_code error;
  resolve_server_address({}, error);
  EXPECT_EQ(error, errc::invalid_argument);
  ::unsetenv("ADB_SERVER_SOCKET");
  ::setenv("ANDROID_ADB_SERVER_PORT", "70000", 1);
  resolve_server_address({}, error);
  EXPECT_EQ(error, errc::invalid_argument);
  ::unsetenv("ANDROID_ADB_SERVER_PORT");
}

}  // namespace
}  // namespace adbwire
