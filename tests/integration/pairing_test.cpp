// Wireless debugging pairing end to end: adbwire::pair against the virtual device's pairing
// service over real loopback TCP (TLS 1.3, SPAKE2, the encrypted PeerInfo), then the paired key
// taken by its TLS connect port with no prompt; and each way pairing fails, as a typed error
// within the timeout. Debian's adb 29 cannot pair (adb 30 added it), so no real-adb case here;
// SPAKE2 itself is checked against BoringSSL in tests/unit/pairing.
#include "adbwire/pairing.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <asio/ip/tcp.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using test::TempDir;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A phone in Wireless debugging: TLS connect port, pairing service with code 482915.
VirtualDeviceOptions phone(const fs::path& dir, PairingFault fault = PairingFault::none) {
  VirtualDeviceOptions options;
  options.tls = true;
  options.keys_file = dir / "adb_keys";
  options.pairing_code = "482915";
  options.pairing_fault = fault;
  options.serial = "R5CT1234";
  return options;
}

PairOptions host(const fs::path& dir, milliseconds timeout = milliseconds(10000)) {
  PairOptions options;
  options.keys.android_dir = dir / "home/.android";
  options.keys.vendor_keys = {dir / "no-vendor-keys"};
  options.timeout = timeout;
  fs::create_directories(options.keys.android_dir);
  return options;
}

ConnectOptions connect_options(const PairOptions& pair) {
  ConnectOptions options;
  options.keys = pair.keys;
  options.connect_timeout = milliseconds(5000);
  return options;
}

std::string pairing_address(const VirtualDevice& device) {
  return "127.0.0.1:" + std::to_string(device.pairing_port());
}

// Runs pair and returns its error, checking it came within `bound`.
std::error_code pair_error(const std::string& address, const std::string& code,
                           const PairOptions& options, std::string& detail,
                           milliseconds bound = milliseconds(5000)) {
  std::error_code error;
  const auto start = std::chrono::steady_clock::now();
  pair(address, code, options, error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, bound) << "pairing took too long";
  detail = last_error_detail();
  return error;
}

TEST(Pairing, RightCodePairsThenTheConnectPortTakesTheKeyWithNoPrompt) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const PairOptions options = host(dir.path());

  std::error_code before;
  Device::connect(device.target(), connect_options(options), before);
  EXPECT_EQ(before, make_error_code(errc::unauthorized)) << "a host must pair first";

  const PairResult result = pair(pairing_address(device), "482915", options);
  EXPECT_EQ(result.guid, device.guid());
  EXPECT_TRUE(result.guid.starts_with("adb-R5CT1234-")) << result.guid;
  EXPECT_EQ(result.address, pairing_address(device));
  EXPECT_EQ(device.hosts_paired(), 1u);

  // The phone stored our adbkey.pub line; we stored the phone.
  const std::string ours = read_file(options.keys.android_dir / "adbkey.pub");
  EXPECT_EQ(read_file(dir.path() / "adb_keys"),
            ours.substr(0, ours.find(' ')) + ours.substr(ours.find(' ')) + "\n");
  const fs::path known = known_hosts_path(options.keys);
  EXPECT_EQ(read_file(known), result.guid + " " + pairing_address(device) + "\n");
  struct stat info {};
  ASSERT_EQ(::stat(known.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  const auto hosts = load_known_hosts(options.keys);
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_TRUE(is_known_host(hosts, result.guid + " (2)"));
  EXPECT_FALSE(is_known_host(hosts, "adb-other-abcdef"));

  Device paired = Device::connect(device.target(), connect_options(options));
  EXPECT_TRUE(paired.connection_info().tls);
  EXPECT_EQ(paired.shell("echo paired").out, "paired\n");

  // Pairing again replaces the entry rather than adding one.
  pair(pairing_address(device), "482915", options);
  EXPECT_EQ(load_known_hosts(options.keys).size(), 1u);
}

TEST(Pairing, WrongCodeIsUnauthorizedAndStoresNothing) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const PairOptions options = host(dir.path());
  std::string detail;
  EXPECT_EQ(pair_error(pairing_address(device), "482916", options, detail),
            make_error_code(errc::unauthorized));
  EXPECT_NE(detail.find("pairing code is wrong"), std::string::npos) << detail;
  EXPECT_EQ(device.hosts_paired(), 0u);
  EXPECT_EQ(read_file(dir.path() / "adb_keys"), "");
  EXPECT_FALSE(fs::exists(known_hosts_path(options.keys)));
  std::error_code still;
  Device::connect(device.target(), connect_options(options), still);
  EXPECT_EQ(still, make_error_code(errc::unauthorized));
}

TEST(Pairing, AStalledPeerIsATimeoutAtTheDeadline) {
  TempDir dir;
  VirtualDevice device(phone(dir.path(), PairingFault::stall));
  device.start();
  std::string detail;
  EXPECT_EQ(pair_error(pairing_address(device), "482915", host(dir.path(), milliseconds(800)),
                       detail, milliseconds(3000)),
            make_error_code(errc::timeout));
  EXPECT_NE(detail.find("stopped answering"), std::string::npos) << detail;
}

TEST(Pairing, AHeaderOfAnotherVersionOrTooLongIsAProtocolError) {
  for (const auto& [fault, said] : {std::pair{PairingFault::bad_version, "version 2"},
                                    std::pair{PairingFault::oversized_frame, "16385 bytes"}}) {
    TempDir dir;
    VirtualDevice device(phone(dir.path(), fault));
    device.start();
    std::string detail;
    EXPECT_EQ(pair_error(pairing_address(device), "482915", host(dir.path()), detail),
              make_error_code(errc::protocol_error));
    EXPECT_NE(detail.find(said), std::string::npos) << detail;
  }
}

TEST(Pairing, AClosedPortIsConnectionRefused) {
  TempDir dir;
  asio::io_context io;
  asio::ip::tcp::acceptor probe(io, {asio::ip::make_address("127.0.0.1"), 0});
  const auto port = probe.local_endpoint().port();
  probe.close();
  std::string detail;
  EXPECT_EQ(pair_error("127.0.0.1:" + std::to_string(port), "482915", host(dir.path()), detail),
            make_error_code(errc::connection_refused));
  EXPECT_NE(detail.find("Pair device with pairing code"), std::string::npos) << detail;
}

// The device's ADB port (not its pairing port) does not speak TLS: it hangs up on our
// ClientHello.
TEST(Pairing, APeerThatIsNoTlsPairingServiceIsAProtocolError) {
  TempDir dir;
  VirtualDevice plain;
  plain.start();
  std::string detail;
  EXPECT_EQ(
      pair_error("127.0.0.1:" + std::to_string(plain.port()), "482915", host(dir.path()), detail),
      make_error_code(errc::protocol_error));
  EXPECT_NE(detail.find("TLS handshake"), std::string::npos) << detail;
}

TEST(Pairing, BadAddressOrNoCodeIsInvalidArgument) {
  TempDir dir;
  std::string detail;
  for (const char* address : {"127.0.0.1", "127.0.0.1:0", ":5555", "[::1]", "a:b:c"}) {
    EXPECT_EQ(pair_error(address, "1", host(dir.path()), detail),
              make_error_code(errc::invalid_argument))
        << address;
  }
  EXPECT_EQ(pair_error("127.0.0.1:5555", "", host(dir.path()), detail),
            make_error_code(errc::invalid_argument));
}

// `adbwire pair` as adb users type it: the code on standard input, adb's success line, a wrong
// code's message and exit status, then `-s HOST:PORT shell` over TLS with the paired key.
TEST(PairingCli, PairsWithTheCodeFromStandardInputThenShellRunsOverTls) {
  TempDir dir;
  VirtualDevice device(phone(dir.path()));
  device.start();
  const fs::path home = dir.path() / "home";
  fs::create_directories(home / ".android");
  const std::vector<std::string> env = {"HOME=" + home.string(), "LOGNAME=pair"};
  const std::string address = pairing_address(device);

  const auto wrong = test::run_process({ADBWIRE_CLI_PATH, "pair", address, "000000"}, env, {});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("the pairing code is wrong"), std::string::npos) << wrong.err;

  const auto paired = test::run_process({ADBWIRE_CLI_PATH, "pair", address}, env, "482915\n");
  ASSERT_EQ(paired.exit_code, 0) << paired.err;
  EXPECT_NE(paired.out.find("Enter pairing code: Successfully paired to " + address +
                            " [guid=" + device.guid() + "]\n"),
            std::string::npos)
      << paired.out;
  EXPECT_NE(paired.out.find("Next: adbwire -s HOST:PORT shell"), std::string::npos);
  EXPECT_EQ(test::read_file(home / ".android/adbwire_known_hosts"),
            device.guid() + " " + address + "\n");

  const auto shell =
      test::run_process({ADBWIRE_CLI_PATH, "-s", "127.0.0.1:" + std::to_string(device.port()),
                         "shell", "echo", "wireless"},
                        env, {});
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  EXPECT_EQ(shell.out, "wireless\n");

  const auto no_code = test::run_process({ADBWIRE_CLI_PATH, "pair", address}, env, "");
  EXPECT_EQ(no_code.exit_code, 1);
  EXPECT_NE(no_code.err.find("no pairing code"), std::string::npos) << no_code.err;
}

}  // namespace
}  // namespace adbwire
