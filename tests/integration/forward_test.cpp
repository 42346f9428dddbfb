// Forwarder against the virtual device: forward and reverse move bytes both ways exactly,
// rules are listed and removed, a device OPEN no reverse rule names is refused; and the real
// `adb` host's forward/reverse against the virtual device's tcp: and reverse: services.
#include "adbwire/forward.hpp"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/vdevice.hpp"
#include "integration/adb_server.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
using asio::ip::tcp;

constexpr std::size_t kEightMiB = 8 * 1024 * 1024;

// A loopback TCP echo server on its own thread: what an app listening on a port looks like.
class EchoServer {
 public:
  EchoServer() : acceptor_(io_, {asio::ip::address_v4::loopback(), 0}) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~EchoServer() {
    io_.stop();
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  int connections() const { return connections_; }

 private:
  struct Session : std::enable_shared_from_this<Session> {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    void read() {
      socket.async_read_some(asio::buffer(buffer), [self = shared_from_this()](std::error_code error, std::size_t n) {
        if (error) return;
        asio::async_write(self->socket, asio::buffer(self->buffer.data(), n),
                          [self](std::error_code write_error, std::size_t) {
                            if (!write_error) self->read();
                          });
      });
    }
    tcp::socket socket;
    std::array<std::uint8_t, 64 * 1024> buffer{};
  };

  void accept() {
    acceptor_.async_accept([this](std::error_code error, tcp::socket socket) {
      if (error) return;
      ++connections_;
      std::make_shared<Session>(std::move(socket))->read();
      accept();
    });
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  return bytes;
}

// Connects to 127.0.0.1:port, writes data (on a second thread) while reading the same number
// of bytes back; returns what came back (shorter when the connection ended early).
std::string round_trip(std::uint16_t port, const std::string& data) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect({asio::ip::address_v4::loopback(), port});
  std::thread writer([&] {
    std::error_code ignored;
    asio::write(socket, asio::buffer(data), ignored);
  });
  std::string back(data.size(), '\0');
  std::error_code error;
  const std::size_t n = asio::read(socket, asio::buffer(back), error);
  back.resize(n);
  std::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  writer.join();
  return back;
}

// True when the peer ends the connection without sending anything.
bool closed_at_once(std::uint16_t port) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect({asio::ip::address_v4::loopback(), port});
  std::array<char, 16> buffer{};
  std::error_code error;
  const std::size_t n = socket.read_some(asio::buffer(buffer), error);
  return n == 0 && (error == asio::error::eof || error == asio::error::connection_reset);
}

template <typename Predicate>
bool eventually(Predicate predicate) {
  const auto give_up = Clock::now() + 10s;
  while (!predicate()) {
    if (Clock::now() > give_up) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

class ForwardTest : public ::testing::Test {
 protected:
  void SetUp() override { vd_.start(); }
  VirtualDevice vd_;
  EchoServer echo_;
};

TEST_F(ForwardTest, ForwardMovesEightMiBBothWaysByteExact) {
  Device device = Device::connect(vd_.target());
  Forwarder forwarder(device);
  const std::string local = forwarder.forward("tcp:0", "tcp:" + std::to_string(echo_.port()));
  ASSERT_TRUE(local.starts_with("tcp:"));
  const auto port = static_cast<std::uint16_t>(std::stoi(local.substr(4)));
  const std::string data = random_bytes(kEightMiB, 1);
  const std::string back = round_trip(port, data);
  ASSERT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);
  EXPECT_EQ(echo_.connections(), 1);
  EXPECT_TRUE(eventually([&] { return forwarder.stats().from_device == kEightMiB; }));
  EXPECT_EQ(forwarder.stats().to_device, kEightMiB);
  EXPECT_EQ(forwarder.stats().connections, 1u);
}

TEST_F(ForwardTest, RulesAreListedReplacedAndRemoved) {
  Device device = Device::connect(vd_.target());
  Forwarder forwarder(device);
  const std::string local = forwarder.forward("tcp:0", "tcp:1");
  ASSERT_EQ(forwarder.list().size(), 1u);
  EXPECT_EQ(forwarder.list()[0].local, local);
  EXPECT_EQ(forwarder.list()[0].remote, "tcp:1");

  std::error_code error;
  forwarder.forward(local, "tcp:2", true, error);
  EXPECT_EQ(error, errc::busy);
  const std::string echo_remote = "tcp:" + std::to_string(echo_.port());
  EXPECT_EQ(forwarder.forward(local, echo_remote), local);
  ASSERT_EQ(forwarder.list().size(), 1u);
  EXPECT_EQ(forwarder.list()[0].remote, echo_remote);
  const auto port = static_cast<std::uint16_t>(std::stoi(local.substr(4)));
  EXPECT_EQ(round_trip(port, "hello"), "hello");

  forwarder.remove(local);
  EXPECT_TRUE(forwarder.list().empty());
  forwarder.remove(local, error);
  EXPECT_EQ(error, errc::not_found);
  forwarder.forward("udp:5", "tcp:1", false, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

TEST_F(ForwardTest, ARemoteTheDeviceRefusesClosesTheLocalConnection) {
  Device device = Device::connect(vd_.target());
  Forwarder forwarder(device);
  // Port 1 on loopback has no listener: the virtual device refuses the OPEN, as adbd does.
  const std::string local = forwarder.forward("tcp:0", "tcp:1");
  EXPECT_TRUE(closed_at_once(static_cast<std::uint16_t>(std::stoi(local.substr(4)))));
  EXPECT_EQ(device.shell("echo still").out, "still\n");
}

TEST_F(ForwardTest, ReverseBridgesDeviceConnectionsToTheHost) {
  Device device = Device::connect(vd_.target());
  Forwarder forwarder(device);
  const std::string host_side = "tcp:" + std::to_string(echo_.port());
  EXPECT_EQ(forwarder.reverse("tcp:6000", host_side), "");
  const std::uint16_t device_port = vd_.reverse_port("tcp:6000");
  ASSERT_NE(device_port, 0);
  const std::string data = random_bytes(kEightMiB, 2);
  const std::string back = round_trip(device_port, data);
  ASSERT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);
  EXPECT_EQ(echo_.connections(), 1);

  const auto rules = forwarder.reverse_list();
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].local, "tcp:6000");
  EXPECT_EQ(rules[0].remote, host_side);

  try {
    forwarder.reverse("tcp:6000", host_side, true);
    FAIL() << "norebind over an existing rule must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("cannot rebind existing socket"), std::string::npos) << e.what();
  }
  forwarder.reverse_remove("tcp:6000");
  EXPECT_EQ(vd_.reverse_port("tcp:6000"), 0);
  std::error_code error;
  forwarder.reverse_remove("tcp:6000", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_TRUE(forwarder.reverse_list().empty());
}

TEST_F(ForwardTest, ADeviceOpenNoReverseRuleNamesIsRefused) {
  Device device = Device::connect(vd_.target());
  Forwarder forwarder(device);
  forwarder.reverse("tcp:6001", "tcp:" + std::to_string(echo_.port()));
  // The device asks for a host port no rule names (a compromised adbd probing the host).
  const std::uint16_t probe = vd_.open_to_host("tcp:22");
  ASSERT_NE(probe, 0);
  EXPECT_TRUE(closed_at_once(probe));
  EXPECT_TRUE(eventually([&] { return vd_.reverse_refused() == 1; }));
  EXPECT_EQ(forwarder.stats().refused, 1u);
  EXPECT_EQ(echo_.connections(), 0);
  EXPECT_EQ(device.shell("echo still").out, "still\n");
}

TEST_F(ForwardTest, WithoutAForwarderEveryDeviceOpenIsRefused) {
  Device device = Device::connect(vd_.target());
  const std::uint16_t probe = vd_.open_to_host("tcp:" + std::to_string(echo_.port()));
  ASSERT_NE(probe, 0);
  EXPECT_TRUE(closed_at_once(probe));
  EXPECT_TRUE(eventually([&] { return vd_.reverse_refused() == 1; }));
  EXPECT_EQ(echo_.connections(), 0);
}

// The virtual device's tcp: and reverse: services checked by AOSP's own host code.
class RealAdbForwardTest : public ForwardTest {
 protected:
  void SetUp() override {
    ForwardTest::SetUp();
    ASSERT_EQ(server_.start(), "");
    serial_ = "127.0.0.1:" + std::to_string(vd_.port());
    ASSERT_EQ(server_.connect_and_wait(serial_), "");
  }
  test::ProcessResult adb_s(std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", serial_});
    return server_.adb(std::move(args));
  }

  test::AdbServerProcess server_;
  std::string serial_;
};

TEST_F(RealAdbForwardTest, AdbForwardReachesTheDevicesTcpService) {
  const std::uint16_t local = test::free_port();
  const std::string local_spec = "tcp:" + std::to_string(local);
  const auto forward = adb_s({"forward", local_spec, "tcp:" + std::to_string(echo_.port())});
  ASSERT_EQ(forward.exit_code, 0) << forward.err;
  const std::string data = random_bytes(1024 * 1024, 3);
  EXPECT_TRUE(round_trip(local, data) == data);
  const auto list = adb_s({"forward", "--list"});
  EXPECT_NE(list.out.find(local_spec + " tcp:" + std::to_string(echo_.port())), std::string::npos) << list.out;
  EXPECT_EQ(adb_s({"forward", "--remove", local_spec}).exit_code, 0);
}

TEST_F(RealAdbForwardTest, AdbReverseRegistersOnTheDeviceAndCarriesItsConnections) {
  const std::string host_side = "tcp:" + std::to_string(echo_.port());
  const auto reverse = adb_s({"reverse", "tcp:7001", host_side});
  ASSERT_EQ(reverse.exit_code, 0) << reverse.out << reverse.err;
  const std::uint16_t device_port = vd_.reverse_port("tcp:7001");
  ASSERT_NE(device_port, 0);
  const std::string data = random_bytes(1024 * 1024, 4);
  EXPECT_TRUE(round_trip(device_port, data) == data);

  const auto list = adb_s({"reverse", "--list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("tcp:7001 " + host_side), std::string::npos) << "out: " << list.out << " err: " << list.err;
  const auto again = adb_s({"reverse", "--no-rebind", "tcp:7001", host_side});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE((again.out + again.err).find("cannot rebind existing socket"), std::string::npos) << again.err;
  EXPECT_EQ(adb_s({"reverse", "--remove", "tcp:7001"}).exit_code, 0);
  EXPECT_EQ(vd_.reverse_port("tcp:7001"), 0);
}

}  // namespace
}  // namespace adbwire
