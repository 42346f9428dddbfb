// Forwarder against the virtual device: forward and reverse move bytes both ways exactly,
// rules are listed and removed, a device OPEN no reverse rule names is refused; the CLI's
// `forward` processes listed and removed from other processes; and the real `adb` host's
// forward/reverse against the virtual device's tcp: and reverse: services.
#include "adbwire/forward.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

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
      socket.async_read_some(asio::buffer(buffer),
                             [self = shared_from_this()](std::error_code error, std::size_t n) {
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
  EXPECT_EQ(last_error_detail(), "cannot rebind existing socket " + local);
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
  EXPECT_EQ(last_error_detail(), "listener '" + local + "' not found");
  forwarder.forward("udp:5", "tcp:1", false, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_NE(last_error_detail().find("not 'udp:5'"), std::string::npos) << last_error_detail();
  forwarder.forward("tcp:0", "tcp:1", false, error);
  EXPECT_FALSE(error);
  EXPECT_EQ(last_error_detail(), "");
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
    EXPECT_NE(std::string(e.what()).find("cannot rebind existing socket"), std::string::npos)
        << e.what();
  }
  forwarder.reverse_remove("tcp:6000");
  EXPECT_EQ(vd_.reverse_port("tcp:6000"), 0);
  std::error_code error;
  forwarder.reverse_remove("tcp:6000", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::command_failed);
  EXPECT_NE(last_error_detail().find("reverse killforward:tcp:6000 on "), std::string::npos)
      << last_error_detail();
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
  EXPECT_NE(list.out.find(local_spec + " tcp:" + std::to_string(echo_.port())), std::string::npos)
      << list.out;
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
  EXPECT_NE(list.out.find("tcp:7001 " + host_side), std::string::npos)
      << "out: " << list.out << " err: " << list.err;
  const auto again = adb_s({"reverse", "--no-rebind", "tcp:7001", host_side});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE((again.out + again.err).find("cannot rebind existing socket"), std::string::npos)
      << again.err;
  EXPECT_EQ(adb_s({"reverse", "--remove", "tcp:7001"}).exit_code, 0);
  EXPECT_EQ(vd_.reverse_port("tcp:7001"), 0);
}

// `adbwire forward` as a user runs it: a foreground process per rule, listed and removed by
// other `adbwire forward` calls through the files in a private XDG_RUNTIME_DIR.
class ForwardCliTest : public ForwardTest {
 protected:
  void SetUp() override {
    ForwardTest::SetUp();
    std::filesystem::create_directories(temp_.path() / "run");
    env_ = {"HOME=" + temp_.path().string(), "XDG_RUNTIME_DIR=" + (temp_.path() / "run").string()};
  }

  std::unique_ptr<test::Background> start_forward(const std::string& local,
                                                  const std::string& remote) {
    return std::make_unique<test::Background>(
        std::vector<std::string>{ADBWIRE_CLI_PATH, "-s", vd_.target(), "forward", local, remote},
        env_);
  }
  test::ProcessResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    return test::run_process(std::move(args), env_, {});
  }
  // The bound local spec a forward process printed first ("tcp:41234 -> …").
  static std::string bound_local(test::Background& forward) {
    const std::string line = forward.first_line();
    EXPECT_NE(line.find(" -> "), std::string::npos) << line;
    return line.substr(0, line.find(' '));
  }
  static std::uint16_t port_of(const std::string& spec) {
    return static_cast<std::uint16_t>(std::stoi(spec.substr(4)));
  }

  test::TempDir temp_;
  std::vector<std::string> env_;
};

TEST_F(ForwardCliTest, ARuleIsListedElsewhereAndRemovingItEndsItsProcess) {
  const std::string remote = "tcp:" + std::to_string(echo_.port());
  auto forward = start_forward("tcp:0", remote);
  const std::string local = bound_local(*forward);
  ASSERT_TRUE(local.starts_with("tcp:")) << local;
  const std::string data = random_bytes(256 * 1024, 5);
  EXPECT_TRUE(round_trip(port_of(local), data) == data);

  const auto list = cli({"forward", "--list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out,
            "127.0.0.1:" + std::to_string(vd_.port()) + " " + local + " " + remote + "\n");

  const auto unknown = cli({"forward", "--remove", "tcp:1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("listener 'tcp:1' not found"), std::string::npos) << unknown.err;
  EXPECT_EQ(forward->exit_code(0ms), test::Background::kRunning);

  const auto removed = cli({"forward", "--remove", local});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(forward->exit_code(10s), 0);
  EXPECT_EQ(cli({"forward", "--list"}).out, "");
  const int refused = test::connect_loopback(port_of(local));
  EXPECT_LT(refused, 0) << "the port still accepts after --remove";
  if (refused >= 0) ::close(refused);
}

TEST_F(ForwardCliTest, RebindingAPortReplacesItsProcessAndRemoveAllEndsEveryOne) {
  const std::string remote = "tcp:" + std::to_string(echo_.port());
  auto first = start_forward("tcp:0", remote);
  const std::string local = bound_local(*first);
  auto other = start_forward("tcp:0", remote);
  const std::string other_local = bound_local(*other);

  auto held = std::make_unique<test::Background>(
      std::vector<std::string>{ADBWIRE_CLI_PATH, "-s", vd_.target(), "forward", "--no-rebind",
                               local, remote},
      env_);
  EXPECT_EQ(held->exit_code(10s), 1) << "--no-rebind took a port another forward holds";
  EXPECT_EQ(first->exit_code(0ms), test::Background::kRunning);

  auto second = start_forward(local, remote);
  EXPECT_EQ(bound_local(*second), local);
  EXPECT_EQ(first->exit_code(10s), 0) << "rebinding should end the process that held the port";
  const std::string data = random_bytes(64 * 1024, 6);
  EXPECT_TRUE(round_trip(port_of(local), data) == data);

  const auto list = cli({"forward", "--list"});
  EXPECT_NE(list.out.find(" " + local + " " + remote + "\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" " + other_local + " " + remote + "\n"), std::string::npos) << list.out;

  EXPECT_EQ(cli({"forward", "--remove-all"}).exit_code, 0);
  EXPECT_EQ(second->exit_code(10s), 0);
  EXPECT_EQ(other->exit_code(10s), 0);
  EXPECT_EQ(cli({"forward", "--list"}).out, "");
}

// A registration left by a process killed with SIGKILL, or whose PID now belongs to another
// process, is skipped and deleted, and that process is never signalled.
TEST_F(ForwardCliTest, StaleRegistrationsAreDeletedAndTheirPidsLeftAlone) {
  const std::filesystem::path folder = temp_.path() / "run" / "adbwire";
  std::filesystem::create_directories(folder);
  std::filesystem::permissions(folder, std::filesystem::perms::owner_all);
  auto killed = start_forward("tcp:0", "tcp:" + std::to_string(echo_.port()));
  bound_local(*killed);
  const pid_t killed_pid = killed->pid();
  // A process that did not start has no PID (-1), and kill(-1) signals every process this
  // user may signal.
  ASSERT_GT(killed_pid, 0) << "the forward process did not start";
  ::kill(killed_pid, SIGKILL);
  EXPECT_EQ(killed->exit_code(10s), -1);
  ASSERT_TRUE(std::filesystem::exists(folder / ("forward-" + std::to_string(killed_pid))));
  {
    // This test process's PID with another start time: a PID reused since it registered.
    std::ofstream reused(folder / ("forward-" + std::to_string(::getpid())));
    reused << ::getpid() << "\n1\nemulator-5554\ntcp:6100\ntcp:6100\n";
  }
  EXPECT_EQ(cli({"forward", "--list"}).out, "");
  EXPECT_FALSE(std::filesystem::exists(folder / ("forward-" + std::to_string(killed_pid))));
  EXPECT_FALSE(std::filesystem::exists(folder / ("forward-" + std::to_string(::getpid()))));
  {
    std::ofstream reused(folder / ("forward-" + std::to_string(::getpid())));
    reused << ::getpid() << "\n1\nemulator-5554\ntcp:6100\ntcp:6100\n";
  }
  // Were this process signalled, SIGTERM would end the test run here.
  EXPECT_EQ(cli({"forward", "--remove-all"}).exit_code, 0);
  const auto gone = cli({"forward", "--remove", "tcp:6100"});
  EXPECT_NE(gone.err.find("not found"), std::string::npos) << gone.err;
}

}  // namespace
}  // namespace adbwire
