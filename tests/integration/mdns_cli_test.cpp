// The CLI's Wireless debugging by name: `mdns check` and `mdns services` in adb's words, `-s GUID
// shell` and `open GUID`, and `pair --qr` with the test as the phone: the QR code the CLI prints
// is read back from the terminal text by zbarimg (Debian's zbar-tools, an independent decoder)
// and handed to the virtual device's camera.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::TempDir;

VirtualDeviceOptions phone(const fs::path& dir) {
  std::random_device random;
  VirtualDeviceOptions options;
  options.tls = true;
  options.keys_file = dir / "adb_keys";
  options.pairing_code = "482915";
  options.serial = "CLI" + std::to_string(random() % 1000000000);
  options.mdns = true;
  return options;
}

struct Host {
  explicit Host(const fs::path& dir) : home(dir / "home") {
    fs::create_directories(home / ".android");
    fs::create_directories(dir / "run");
    env = {"HOME=" + home.string(), "LOGNAME=mdns", "XDG_RUNTIME_DIR=" + (dir / "run").string(),
           // No adb server of the user's is asked.
           "ANDROID_ADB_SERVER_PORT=" + std::to_string(test::free_port())};
  }
  test::ProcessResult run(std::vector<std::string> args, std::string input = {}) const {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(args, env, input, 60s);
  }
  fs::path home;
  std::vector<std::string> env;
};

TEST(MdnsCli, ServicesAndCheckSpeakAdbsWords) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const Host host(dir.path());
  const auto services = host.run({"mdns", "services", "--listen", "1.5"});
  ASSERT_EQ(services.exit_code, 0) << services.err;
  EXPECT_TRUE(services.out.starts_with("List of discovered mdns services\n")) << services.out;
  EXPECT_NE(services.out.find(device.guid() + "\t_adb-tls-connect._tcp\t127.0.0.1:" +
                              std::to_string(device.port()) + "\n"),
            std::string::npos)
      << services.out;
  EXPECT_NE(services.out.find(device.guid() + "\t_adb-tls-pairing._tcp\t127.0.0.1:" +
                              std::to_string(device.pairing_port()) + "\n"),
            std::string::npos);

  const auto check = host.run({"mdns", "check"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_TRUE(check.out.starts_with("mdns daemon version [adbwire discovery ")) << check.out;
  EXPECT_NE(check.out.find("lo 127.0.0.1"), std::string::npos) << check.out;
}

TEST(MdnsCli, APairedPhoneIsUsedByItsGuidForShellAndSessions) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const Host host(dir.path());
  const auto paired =
      host.run({"pair", "127.0.0.1:" + std::to_string(device.pairing_port()), "482915"});
  ASSERT_EQ(paired.exit_code, 0) << paired.err;

  const auto shell = host.run({"-s", device.guid(), "shell", "echo", "found"});
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  EXPECT_EQ(shell.out, "found\n");

  const auto opened = host.run({"open", device.guid()});
  ASSERT_EQ(opened.exit_code, 0) << opened.err;
  const auto pressed = host.run({"press", "home"});
  EXPECT_EQ(pressed.exit_code, 0) << pressed.err;
  EXPECT_EQ(host.run({"close"}).exit_code, 0);
  const auto events = device.events();
  EXPECT_NE(std::find_if(events.begin(), events.end(),
                         [](const std::string& e) { return e.find("keyevent") != e.npos; }),
            events.end());

  const auto unknown = host.run({"-s", "adb-NOSUCHPHONE-qqqqqq", "shell", "true"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no _adb-tls-connect._tcp service named adb-NOSUCHPHONE-qqqqqq"),
            std::string::npos)
      << unknown.err;
}

// As adb's server: the daemon connects a phone it paired with when the phone advertises its
// connect port, with no command naming it, and only such a phone. The real adb client reads the
// list; the first request after the server says it is up already sees the phone.
TEST(MdnsCli, TheServerKeepsPairedPhonesConnectedAndNoOthers) {
  const std::string adb = test::find_adb();
  ASSERT_FALSE(adb.empty()) << "adb is needed: apt-get install adb (or run scripts/setup)";
  TempDir dir;
  fs::create_directories(dir.path() / "a");
  fs::create_directories(dir.path() / "b");
  VirtualDevice paired(phone(dir.path() / "a"));
  paired.start();
  VirtualDevice later(phone(dir.path() / "b"));
  later.start();
  const Host host(dir.path());
  ASSERT_EQ(
      host.run({"pair", "127.0.0.1:" + std::to_string(paired.pairing_port()), "482915"}).exit_code,
      0);

  const std::uint16_t port = test::free_port();
  test::Background server(
      {ADBWIRE_CLI_PATH, "server", "--listen", "127.0.0.1:" + std::to_string(port)}, host.env);
  // Told before "listening on", which the server says once it is up.
  ASSERT_EQ(server.first_line(), "adbwire server: connected paired phone " + paired.guid());
  const auto run_adb = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {adb, "-P", std::to_string(port)});
    return test::run_process(std::move(args), host.env, {}, 30s);
  };
  const std::string name = paired.guid() + "._adb-tls-connect._tcp";
  const std::string later_name = later.guid() + "._adb-tls-connect._tcp";
  const auto devices = run_adb({"devices"});
  EXPECT_EQ(devices.out, "List of devices attached\n" + name + "\tdevice\n\n") << devices.err;
  EXPECT_EQ(later.connections_accepted(), 0u) << "a phone this host never paired with";

  const auto shell = run_adb({"-s", name, "shell", "echo", "held"});
  EXPECT_EQ(shell.out, "held\n") << shell.err;
  EXPECT_EQ(paired.connections_accepted(), 1u) << "the shell used the connection the server held";

  // Paired while the server runs: found within the first questions' spacing.
  ASSERT_EQ(
      host.run({"pair", "127.0.0.1:" + std::to_string(later.pairing_port()), "482915"}).exit_code,
      0);
  std::string seen;
  for (int tries = 0; tries < 100 && seen.find(later_name) == std::string::npos; ++tries) {
    std::this_thread::sleep_for(100ms);
    seen = run_adb({"devices"}).out;
  }
  EXPECT_NE(seen.find(later_name + "\tdevice\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find(name + "\tdevice\n"), std::string::npos) << seen;
  EXPECT_EQ(run_adb({"kill-server"}).exit_code, 0);
  EXPECT_EQ(server.exit_code(10s), 0);
}

// The QR code of the CLI's output (lines of █ ▀ ▄ and spaces, light modules drawn) as an image
// zbarimg reads: each module 4×4 pixels, dark ones black.
std::string decode_qr(const std::string& output, const fs::path& dir) {
  std::vector<std::vector<bool>> dark;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.find_first_not_of(" \xe2\x96\x88\x80\x84") != std::string::npos)
      continue;
    std::vector<bool> top, bottom;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] == ' ') {
        top.push_back(true);
        bottom.push_back(true);
        ++i;
        continue;
      }
      const std::string glyph = line.substr(i, 3);
      top.push_back(glyph == "\u2584");
      bottom.push_back(glyph == "\u2580");
      i += 3;
    }
    dark.push_back(top);
    dark.push_back(bottom);
  }
  if (dark.empty()) return {};
  constexpr int kScale = 4;
  const fs::path image = dir / "qr.pbm";
  std::ofstream out(image);
  const std::size_t width = dark[0].size();
  out << "P1\n" << width * kScale << " " << dark.size() * kScale << "\n";
  for (const auto& row : dark) {
    for (int r = 0; r < kScale; ++r) {
      for (std::size_t x = 0; x < width; ++x) {
        const bool black = x < row.size() && row[x];
        for (int c = 0; c < kScale; ++c) out << (black ? "1 " : "0 ");
      }
      out << "\n";
    }
  }
  out.close();
  const auto decoded =
      test::run_process({"/usr/bin/zbarimg", "--raw", "-q", image.string()}, {}, {}, 20s);
  EXPECT_EQ(decoded.exit_code, 0) << decoded.err << " (install: apt-get install zbar-tools)";
  std::string text = decoded.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

TEST(MdnsCli, PairByQrWithTheTestAsThePhone) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const Host host(dir.path());
  const fs::path printed = dir.path() / "qr.txt";
  test::ProcessResult result;
  std::thread cli([&] {
    result =
        test::run_process({"/bin/sh", "-c", std::string("exec \"$0\" pair --qr --wait 30 > \"$1\""),
                           ADBWIRE_CLI_PATH, printed.string()},
                          host.env, {}, 60s);
  });
  std::string output;
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (output.find("Waiting up to") == std::string::npos &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(50ms);
    output = test::read_file(printed);
  }
  const std::string payload = decode_qr(output, dir.path());
  ASSERT_TRUE(payload.starts_with("WIFI:T:ADB;S:studio-")) << payload << "\n" << output;
  ASSERT_TRUE(payload.ends_with(";;"));
  device.scan_pairing_qr(payload);
  cli.join();
  output = test::read_file(printed);
  ASSERT_EQ(result.exit_code, 0) << result.err << output;
  EXPECT_NE(output.find("Successfully paired to 127.0.0.1:" +
                        std::to_string(device.pairing_port()) + " [guid=" + device.guid() + "]"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("connected to 127.0.0.1:" + std::to_string(device.port()) + " (TLS)"),
            std::string::npos)
      << output;
  EXPECT_EQ(device.hosts_paired(), 1u);
  EXPECT_EQ(host.run({"-s", device.guid(), "shell", "echo", "qr"}).out, "qr\n");
}

TEST(MdnsCli, AQrCodeNobodyScansEndsAtItsWait) {
  TempDir dir;
  const Host host(dir.path());
  const auto start = std::chrono::steady_clock::now();
  const auto result = host.run({"pair", "--qr", "--wait", "1"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no phone offered pairing as studio-"), std::string::npos)
      << result.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(host.run({"pair"}).exit_code, 1) << "HOST:PORT or --qr";
}

}  // namespace
}  // namespace adbwire
