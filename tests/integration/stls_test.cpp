// STLS (Wireless debugging TLS): adbwire's host against the virtual device on a TLS-only
// port over real loopback TCP, plus a plain host and a plain "device" that each break STLS.
// Debian's adb 29 predates STLS (adb 30), so no real-adb test here.
#include <gtest/gtest.h>

#include <array>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/keys.hpp"
#include "adbwire/protocol/constants.hpp"
#include "adbwire/protocol/message.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::vector<std::uint8_t> random_bytes(std::size_t size) {
  std::mt19937 random(1234);
  std::vector<std::uint8_t> out(size);
  for (auto& byte : out) byte = static_cast<std::uint8_t>(random());
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string key_line(const PrivateKey& key) { return key.public_key_line("tester@stls") + "\n"; }

// A host key directory (adbkey made on first use) and no vendor keys, inside dir.
ConnectOptions host_options(const fs::path& dir) {
  ConnectOptions options;
  options.keys.android_dir = dir / "host";
  options.keys.vendor_keys = {dir / "no-vendor-keys"};
  fs::create_directories(options.keys.android_dir);
  return options;
}

// A TLS-only virtual device that knows the keys written to dir/adb_keys.
VirtualDeviceOptions tls_device(const fs::path& dir) {
  VirtualDeviceOptions options;
  options.tls = true;
  options.keys_file = dir / "adb_keys";
  return options;
}

TEST(Stls, ShellExecAndSyncRunInsideTls) {
  TempDir dir;
  ConnectOptions connect = host_options(dir.path());
  PrivateKey key = PrivateKey::generate();
  key.save(connect.keys.android_dir / "adbkey", "tester@stls");
  write_file(dir.path() / "adb_keys", key_line(key));
  VirtualDevice vd(tls_device(dir.path()));
  vd.start();

  Device device = Device::connect(vd.target(), connect);
  const ConnectionInfo info = device.connection_info();
  EXPECT_TRUE(info.tls);
  EXPECT_EQ(info.tls_version, "TLSv1.3");
  EXPECT_FALSE(info.tls_cipher.empty());
  EXPECT_EQ(info.auth, AuthMethod::tls);
  EXPECT_EQ(info.key_fingerprint, key.fingerprint());
  // The device certificate's key is reported for audit: stable while the device runs, another
  // device's differs.
  EXPECT_EQ(info.tls_peer_fingerprint.size(), 64u) << info.tls_peer_fingerprint;
  EXPECT_EQ(info.tls_peer_fingerprint.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(Device::connect(vd.target(), connect).connection_info().tls_peer_fingerprint,
            info.tls_peer_fingerprint);
  VirtualDevice other(tls_device(dir.path()));
  other.start();
  EXPECT_NE(Device::connect(other.target(), connect).connection_info().tls_peer_fingerprint,
            info.tls_peer_fingerprint);

  const ShellResult ok = device.shell("echo inside tls");
  EXPECT_EQ(ok.out, "inside tls\n");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(device.shell("exit 7").exit_code, 7);

  // Over a megabyte each way, so many TLS records and flow-control rounds.
  const std::vector<std::uint8_t> data = random_bytes(1536 * 1024 + 7);
  const fs::path local = dir.path() / "data.bin";
  write_file(local, std::string(data.begin(), data.end()));
  push(device, local, "/sdcard/data.bin");
  EXPECT_EQ(device.exec("cat /sdcard/data.bin"), std::string(data.begin(), data.end()));
  const fs::path back = dir.path() / "back.bin";
  pull(device, "/sdcard/data.bin", back);
  EXPECT_EQ(read_file(back), std::string(data.begin(), data.end()));
}

TEST(Stls, PresentsTheKeyTheDeviceNamesInItsCaList) {
  TempDir dir;
  ConnectOptions connect = host_options(dir.path());
  // adbkey (tried first with AUTH) is unknown to the device; the vendor key is known.
  PrivateKey::generate().save(connect.keys.android_dir / "adbkey", "tester@stls");
  PrivateKey vendor = PrivateKey::generate();
  vendor.save(dir.path() / "vendor.adb_key", "vendor@stls");
  connect.keys.vendor_keys = {dir.path() / "vendor.adb_key"};
  write_file(dir.path() / "adb_keys", key_line(vendor));
  VirtualDevice vd(tls_device(dir.path()));
  vd.start();

  Device device = Device::connect(vd.target(), connect);
  EXPECT_EQ(device.connection_info().key_fingerprint, vendor.fingerprint());
  EXPECT_EQ(device.shell("echo vendor").out, "vendor\n");
}

TEST(Stls, UnknownKeyIsUnauthorizedAndSaysToPair) {
  TempDir dir;
  ConnectOptions connect = host_options(dir.path());
  PrivateKey key = PrivateKey::generate();
  key.save(connect.keys.android_dir / "adbkey", "tester@stls");
  write_file(dir.path() / "adb_keys", key_line(PrivateKey::generate()));
  VirtualDevice vd(tls_device(dir.path()));
  vd.start();

  try {
    Device::connect(vd.target(), connect);
    FAIL() << "a device that does not know the key let us in";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), errc::unauthorized) << error.what();
    const std::string what = error.what();
    EXPECT_NE(what.find("adb pair HOST:PORT"), std::string::npos) << what;
    EXPECT_NE(what.find("adbwire cannot pair"), std::string::npos) << what;
    EXPECT_NE(what.find(key.fingerprint()), std::string::npos) << what;
  }

  // The device reads its key list at every handshake, as adbd after a pairing.
  std::ofstream(dir.path() / "adb_keys", std::ios::app) << key_line(key);
  std::error_code error;
  Device device = Device::connect(vd.target(), connect, error);
  ASSERT_FALSE(error) << error.message();
  EXPECT_EQ(device.shell("echo paired").out, "paired\n");
}

std::vector<std::uint8_t> message(std::uint32_t command, std::uint32_t arg0, std::uint32_t arg1,
                                  std::string_view payload = {}) {
  std::vector<std::uint8_t> out;
  protocol::append_message(out, command, arg0, arg1,
                           {reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()},
                           true);
  return out;
}

protocol::Header read_header(asio::ip::tcp::socket& socket) {
  std::array<std::uint8_t, protocol::kHeaderSize> bytes{};
  asio::read(socket, asio::buffer(bytes));
  return protocol::decode_header(bytes);
}

// An adb 29-style host: it answers the device's STLS in the clear; the device hangs up
// and logs why.
TEST(Stls, PlainHostAfterStlsIsRefused) {
  TempDir dir;
  write_file(dir.path() / "adb_keys", "");
  VirtualDevice vd(tls_device(dir.path()));
  vd.start();

  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), vd.port()});
  asio::write(socket, asio::buffer(message(protocol::kCommandCnxn, protocol::kVersion,
                                           protocol::kMaxPayload, "host::features=shell_v2")));
  const protocol::Header stls = read_header(socket);
  EXPECT_EQ(stls.command, protocol::kCommandStls);
  EXPECT_EQ(stls.arg0, protocol::kStlsVersion);
  EXPECT_EQ(stls.data_length, 0u);

  testing::internal::CaptureStderr();
  asio::write(socket, asio::buffer(message(protocol::kCommandOpen, 1, 0, "shell:id")));
  std::array<std::uint8_t, 64> rest{};
  std::error_code error;
  const std::size_t got = socket.read_some(asio::buffer(rest), error);
  vd.stop();  // joins the device thread, so its log line is written
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(error, asio::error::eof) << got << " bytes: " << error.message();
  EXPECT_NE(log.find("in the clear after this device asked for TLS"), std::string::npos) << log;
  EXPECT_NE(log.find("adb 30 or later"), std::string::npos) << log;
}

// A "device" that asks for STLS and then keeps speaking plain ADB.
TEST(Stls, DeviceThatStaysPlainAfterStlsIsAProtocolError) {
  TempDir dir;
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  const std::uint16_t port = acceptor.local_endpoint().port();
  std::thread fake([&] {
    asio::ip::tcp::socket socket(io);
    acceptor.accept(socket);
    const protocol::Header cnxn = read_header(socket);
    std::vector<std::uint8_t> banner(cnxn.data_length);
    asio::read(socket, asio::buffer(banner));
    asio::write(socket, asio::buffer(message(protocol::kCommandStls, protocol::kStlsVersion, 0)));
    const protocol::Header stls = read_header(socket);
    EXPECT_EQ(stls.command, protocol::kCommandStls);
    asio::write(socket, asio::buffer(message(protocol::kCommandCnxn, protocol::kVersion,
                                             protocol::kMaxPayload, "device::")));
    std::array<std::uint8_t, 4096> drain{};
    std::error_code ignored;
    while (socket.read_some(asio::buffer(drain), ignored) > 0) {
    }
  });

  std::string what;
  std::error_code code;
  try {
    Device::connect("tcp:127.0.0.1:" + std::to_string(port), host_options(dir.path()));
  } catch (const Error& error) {
    code = error.code();
    what = error.what();
  }
  fake.join();
  EXPECT_EQ(code, errc::protocol_error) << what;
  EXPECT_NE(what.find("asked for TLS (STLS) but the TLS 1.3 handshake failed"), std::string::npos)
      << what;
}

}  // namespace
}  // namespace adbwire
