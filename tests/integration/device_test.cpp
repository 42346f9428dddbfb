// Device against the virtual device over real loopback TCP, and the CLI run as a process.
#include "adbwire/device.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <asio/ip/tcp.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/forward.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

// The sockets of this process (fd numbers), as /proc lists them.
std::vector<int> open_sockets() {
  std::vector<int> sockets;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), error);
    if (!error && target.string().starts_with("socket:"))
      sockets.push_back(std::stoi(entry.path().filename().string()));
  }
  return sockets;
}

// A program that embeds adbwire and starts another (an agent running a tool, our CLI starting
// its session daemon) must not hand it the device connection or a listening port: the child
// would keep a restarted device's port taken. Every socket the library and the virtual device
// open, connect or accept is close-on-exec.
TEST(Device, EverySocketItOpensIsClosedOnExec) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  Forwarder forwarder(device);
  const std::string local = forwarder.forward("tcp:0", "tcp:9");
  asio::io_context io;
  asio::ip::tcp::socket client(io);
  client.connect(
      {asio::ip::address_v4::loopback(), static_cast<std::uint16_t>(std::stoi(local.substr(4)))});
  EXPECT_EQ(device.shell("echo ok").out, "ok\n");
  const std::vector<int> sockets = open_sockets();
  // The vdevice's listener and accepted socket, our connection, the forward listener.
  EXPECT_GE(sockets.size(), 4U);
  for (const int fd : sockets) {
    if (fd == client.native_handle()) continue;  // the test's own, opened by asio
    EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "socket fd " << fd << " leaks into exec";
  }
}

using namespace std::chrono_literals;
namespace fs = std::filesystem;

using test::TempDir;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A port with nothing listening: bound once, then released.
std::uint16_t closed_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

// ---- shell and exec

TEST(Device, ShellEchoesAndReportsExitCodes) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  EXPECT_TRUE(device.has_feature("shell_v2"));

  const ShellResult hi = device.shell("echo hi");
  EXPECT_EQ(hi.out, "hi\n");
  EXPECT_EQ(hi.err, "");
  EXPECT_EQ(hi.exit_code, 0);

  EXPECT_EQ(device.shell("false").exit_code, 1);
  EXPECT_EQ(device.shell("exit 3").exit_code, 3);
  EXPECT_EQ(device.shell("true").exit_code, 0);
}

TEST(Device, ShellKeepsStderrApart) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const ShellResult result = device.shell("echo out; echo oops >&2; exit 4");
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "oops\n");
  EXPECT_EQ(result.exit_code, 4);

  const ShellResult missing = device.shell("no-such-command");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;
}

TEST(Device, ShellGivesTheCommandAnEmptyStdin) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const ShellResult result = device.shell("cat", deadline_after(20s));
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.exit_code, 0);
}

TEST(Device, StreamingShellDeliversBothChannels) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  std::string out;
  std::string err;
  const auto append_to = [](std::string& text) {
    return [&text](std::span<const std::uint8_t> data) { text.append(data.begin(), data.end()); };
  };
  EXPECT_EQ(device.shell("echo a; echo b >&2; false", append_to(out), append_to(err)), 1);
  EXPECT_EQ(out, "a\n");
  EXPECT_EQ(err, "b\n");
}

TEST(Device, ExecIsBinarySafeForLargeOutput) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const std::string zeros = device.exec("head -c 5000000 /dev/zero");
  ASSERT_EQ(zeros.size(), 5000000u);
  EXPECT_EQ(std::count(zeros.begin(), zeros.end(), '\0'), 5000000);
}

TEST(Device, ExecScreencapIsAPng) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  const std::string png = device.exec("screencap -p");
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(Device, StreamingExecCountsEveryByte) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  std::size_t total = 0;
  std::size_t chunks = 0;
  device.exec("head -c 3000000 /dev/zero", [&](std::span<const std::uint8_t> chunk) {
    total += chunk.size();
    ++chunks;
  });
  EXPECT_EQ(total, 3000000u);
  EXPECT_GT(chunks, 1u);
}

// ---- concurrency

TEST(Device, HundredConcurrentShellsOnOneDevice) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  constexpr int kCalls = 100;
  std::vector<std::string> outputs(kCalls);
  std::vector<std::error_code> errors(kCalls);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCalls; ++i) {
    threads.emplace_back([&, i] {
      outputs[i] = device.shell("echo " + std::to_string(i), kDefaultDeadline, errors[i]).out;
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_FALSE(errors[i]) << i << ": " << errors[i].message();
    EXPECT_EQ(outputs[i], std::to_string(i) + "\n");
  }
}

// ---- authentication

TEST(Device, FirstConnectionOffersThePublicKeyAndTheSecondSigns) {
  TempDir dir;
  const fs::path keys_file = dir.path() / "adb_keys";
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = keys_file;
  options.accept_new_keys = true;
  VirtualDevice vd(options);
  vd.start();

  ConnectOptions connect;
  connect.keys.android_dir = dir.path() / "host";
  connect.keys.vendor_keys = {dir.path() / "no-vendor-keys"};
  fs::create_directories(connect.keys.android_dir);

  {
    Device first = Device::connect(vd.target(), connect);
    const ConnectionInfo info = first.connection_info();
    EXPECT_EQ(info.auth, AuthMethod::public_key);
    EXPECT_EQ(info.signatures_sent, 1u);  // adbkey was tried first and refused
    EXPECT_EQ(first.shell("echo in").out, "in\n");
  }
  const PrivateKey key = PrivateKey::load(connect.keys.android_dir / "adbkey");
  const std::string line = key.public_key_line(default_key_comment());
  const std::string base64 = line.substr(0, line.find(' '));
  EXPECT_NE(read_file(keys_file).find(base64), std::string::npos)
      << "the device did not store our key";

  Device second = Device::connect(vd.target(), connect);
  const ConnectionInfo info = second.connection_info();
  EXPECT_EQ(info.auth, AuthMethod::signature);
  EXPECT_EQ(info.signatures_sent, 1u);
  EXPECT_EQ(info.key_fingerprint, key.fingerprint());
  EXPECT_EQ(second.shell("echo again").out, "again\n");
}

TEST(Device, UnacceptedKeyIsUnauthorizedWithTheFingerprint) {
  TempDir dir;
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = dir.path() / "adb_keys";
  options.accept_new_keys = false;
  VirtualDevice vd(options);
  vd.start();

  ConnectOptions connect;
  connect.keys.android_dir = dir.path() / "host";
  connect.keys.vendor_keys = {dir.path() / "no-vendor-keys"};
  connect.auth_timeout = 300ms;
  fs::create_directories(connect.keys.android_dir);
  try {
    Device::connect(vd.target(), connect);
    FAIL() << "connected without an accepted key";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::unauthorized);
    const PrivateKey key = PrivateKey::load(connect.keys.android_dir / "adbkey");
    EXPECT_NE(std::string(e.what()).find(key.fingerprint()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Allow USB debugging"), std::string::npos) << e.what();
  }
}

// ---- failures

TEST(Device, ConnectionRefusedNamesTheAddress) {
  const std::uint16_t port = closed_port();
  const std::string target = "tcp:127.0.0.1:" + std::to_string(port);
  std::error_code error;
  Device::connect(target, {}, error);
  EXPECT_EQ(error, errc::connection_refused);
  try {
    Device::connect(target);
    FAIL() << "connected to a closed port";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::connection_refused);
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("adbwire vdevice"), std::string::npos) << e.what();
  }
}

// A name is looked up; an address literal (the usual case) skips the lookup. Both connect.
TEST(Device, AHostNameIsLookedUpAndAnUnknownOneIsNotFound) {
  VirtualDevice vd;
  vd.start();
  Device by_name = Device::connect("tcp:localhost:" + std::to_string(vd.port()));
  EXPECT_EQ(by_name.shell("true").exit_code, 0);
  try {
    Device::connect("tcp:no-such-host.invalid:5555");
    FAIL() << "a host that cannot exist resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot resolve host 'no-such-host.invalid'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Device, SilentPeerTimesOutTheHandshake) {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  asio::ip::tcp::socket peer(io);
  acceptor.async_accept(peer, [](const std::error_code&) {});
  std::thread accepting([&io] { io.run(); });

  ConnectOptions options;
  options.connect_timeout = 300ms;
  std::error_code error;
  Device::connect("tcp:127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()), options,
                  error);
  EXPECT_EQ(error, errc::timeout);
  accepting.join();
}

TEST(Device, CommandDeadlinePassesAndTheDeviceStaysUsable) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  std::error_code error;
  device.shell("sleep 30", deadline_after(200ms), error);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_EQ(device.shell("echo still").out, "still\n");
}

TEST(Device, DeviceGoneMidCommandWakesEveryWaiter) {
  auto vd = std::make_unique<VirtualDevice>();
  vd->start();
  Device device = Device::connect(vd->target());
  constexpr int kStreams = 5;
  std::vector<Stream> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(device.open("shell,v2,raw:sleep 60"));

  std::vector<std::error_code> errors(kStreams + 1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kStreams; ++i) {
    threads.emplace_back([&, i] {
      std::array<std::uint8_t, 64> buffer;
      while (streams[i].read_some(buffer, kNoDeadline, errors[i]) > 0) {
      }
    });
  }
  threads.emplace_back([&] { device.shell("sleep 60", kNoDeadline, errors[kStreams]); });
  vd->stop();
  for (auto& thread : threads) thread.join();
  for (const std::error_code& error : errors)
    EXPECT_EQ(error, errc::device_offline) << error.message();
}

TEST(Device, UnsupportedTargetsSaySoAndSuggestTcp) {
  for (const char* target : {"usb:"}) {
    try {
      Device::connect(target);
      FAIL() << target;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::not_supported) << target;
      EXPECT_NE(std::string(e.what()).find("use tcp: or server:"), std::string::npos) << e.what();
    }
  }
}

// ---- the CLI as a process

struct CliRun {
  int status = -1;
  std::string out;
};

// Runs `[environment] adbwire arguments` through sh; arguments may hold redirections.
CliRun run_cli(const std::string& arguments, const std::string& environment = "") {
  const std::string command = environment + " " + std::string(ADBWIRE_CLI_PATH) + " " + arguments;
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer;
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    run.out.append(buffer.data(), n);
  const int raw = ::pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

TEST(Cli, ShellPrintsOutputAndExitsWithTheCommandsCode) {
  VirtualDevice vd;
  vd.start();
  const CliRun hi = run_cli("-s " + vd.target() + " shell echo hi");
  EXPECT_EQ(hi.status, 0);
  EXPECT_EQ(hi.out, "hi\n");
  EXPECT_EQ(run_cli("-s " + vd.target() + " shell false").status, 1);
  EXPECT_EQ(run_cli("-s " + vd.target() + " shell exit 7").status, 7);
  const CliRun with_flags = run_cli("-s " + vd.target() + " shell ls -a /");
  EXPECT_EQ(with_flags.status, 0) << with_flags.out;
}

TEST(Cli, ShellSendsStderrToStderr) {
  VirtualDevice vd;
  vd.start();
  const CliRun run = run_cli("-s " + vd.target() + " shell 'echo out; echo err >&2' 2>/dev/null");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "out\n");
}

TEST(Cli, ExecOutCopiesRawBytes) {
  VirtualDevice vd;
  vd.start();
  const CliRun run = run_cli("-s " + vd.target() + " exec-out head -c 100000 /dev/zero");
  EXPECT_EQ(run.status, 0);
  ASSERT_EQ(run.out.size(), 100000u);
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\0'), 100000);
}

// Its own runtime folder and HOME: the daemon keeps the device the first call used, and adb's rule
// then picks the one device it holds when none is named, so a shared daemon would hide the error.
TEST(Cli, FallsBackToAndroidSerial) {
  VirtualDevice vd;
  vd.start();
  TempDir home;
  const std::string alone =
      "env -u ANDROID_SERIAL -u ADB_SERIAL XDG_RUNTIME_DIR=" + home.path().string() +
      " HOME=" + home.path().string() + " ANDROID_ADB_SERVER_PORT=" + std::to_string(closed_port());
  const CliRun without = run_cli("shell echo from-env 2>&1", alone);
  EXPECT_EQ(without.status, 1);
  EXPECT_NE(without.out.find("ANDROID_SERIAL"), std::string::npos) << without.out;
  const CliRun with_env = run_cli("shell echo from-env", alone + " ANDROID_SERIAL=" + vd.target());
  EXPECT_EQ(with_env.status, 0);
  EXPECT_EQ(with_env.out, "from-env\n");
  run_cli("kill-server", alone);
}

// $ADB_SERIAL is the next choice after $ANDROID_SERIAL, for tools that set that name.
TEST(Cli, FallsBackToAdbSerialAfterAndroidSerial) {
  VirtualDevice vd;
  vd.start();
  const CliRun adb_serial =
      run_cli("shell echo from-adb-serial", "env -u ANDROID_SERIAL ADB_SERIAL=" + vd.target());
  EXPECT_EQ(adb_serial.status, 0);
  EXPECT_EQ(adb_serial.out, "from-adb-serial\n");
}

TEST(Cli, ConnectionErrorIsOneLineOnStderrAndExitOne) {
  const std::string target = "tcp:127.0.0.1:" + std::to_string(closed_port());
  const CliRun run = run_cli("-s " + target + " shell true 2>&1");
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  EXPECT_NE(run.out.find("connection refused"), std::string::npos) << run.out;
}

TEST(Cli, KeygenWritesALoadableKeyPair) {
  TempDir dir;
  const fs::path key_path = dir.path() / "adbkey";
  const CliRun run = run_cli("keygen " + key_path.string());
  EXPECT_EQ(run.status, 0) << run.out;
  const PrivateKey key = PrivateKey::load(key_path);
  const std::string pub = read_file(key_path.string() + ".pub");
  EXPECT_EQ(pub.substr(0, pub.find(' ')), key.public_key_line("x").substr(0, pub.find(' ')));
}

}  // namespace
}  // namespace adbwire
