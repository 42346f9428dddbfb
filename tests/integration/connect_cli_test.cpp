// adb's connect, disconnect, reconnect and kill-server as adbwire's daemon serves them, beside a
// real adb server (Debian's adb): the devices the daemon holds are listed once and counted when a
// command names none, a device is dropped wherever it is connected, kill-server ends every
// background process of the user, and a port that hangs up or never answers reads through the
// daemon as it does on a direct connection. Part of adb_conformance_tests (the same fixtures).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "integration/adb_server.hpp"
#include "integration/temp_dir.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A TCP port on loopback that accepts and then hangs up at once, or keeps every connection open
// and never says a word (a port of something that is not adbd, a device that froze).
class BadPort {
 public:
  explicit BadPort(bool hang_up) : hang_up_(hang_up) {
    fd_ = test::listen_loopback(port_);
    EXPECT_GE(fd_, 0);
    thread_ = std::thread([this] {
      for (;;) {
        const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) return;  // shut down
        if (hang_up_) {
          ::close(client);
        } else {
          kept_.push_back(client);
        }
      }
    });
  }
  ~BadPort() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    for (const int fd : kept_) ::close(fd);
  }
  BadPort(const BadPort&) = delete;
  BadPort& operator=(const BadPort&) = delete;

  std::string serial() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  const bool hang_up_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<int> kept_;  // the accepting thread's only
  std::thread thread_;
};

class ConnectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_.start(), "");
    device_.start();
    serial_ = "127.0.0.1:" + std::to_string(device_.port());
    fs::create_directories(temp_.path() / "run");
    fs::permissions(temp_.path() / "run", fs::perms::owner_all);
    env_ = server_.env();
    // The adb server's environment carries ctest's runtime folder: this test's replaces it.
    test::set_variable(env_, "ANDROID_ADB_SERVER_PORT=" + std::to_string(server_.port()));
    test::set_variable(env_, "XDG_RUNTIME_DIR=" + (temp_.path() / "run").string());
  }

  void TearDown() override { adbwire({"kill-server"}); }

  test::ProcessResult adbwire(std::vector<std::string> args,
                              const std::vector<std::string>& extra_env = {}) {
    args.insert(args.begin(), ADBWIRE_CLI_PATH);
    std::vector<std::string> env = env_;
    for (const std::string& entry : extra_env) test::set_variable(env, entry);
    return test::run_process(std::move(args), std::move(env), {}, 30s);
  }

  // The daemon sockets in the runtime folder.
  std::vector<fs::path> sockets() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(temp_.path() / "run" / "adbwire")) {
      if (entry.path().extension() == ".sock") found.push_back(entry.path());
    }
    return found;
  }

  test::AdbServerProcess server_;
  VirtualDevice device_;
  std::string serial_;
  test::TempDir temp_;
  std::vector<std::string> env_;
};

TEST_F(ConnectCli, TheDaemonsDevicesAreListedOnceAndCountWhenNoneIsNamed) {
  const test::ProcessResult connected = adbwire({"connect", serial_});
  EXPECT_EQ(connected.exit_code, 0) << connected.err;
  EXPECT_EQ(connected.out, "connected to " + serial_ + "\n");
  EXPECT_EQ(adbwire({"connect", serial_}).out, "already connected to " + serial_ + "\n");
  EXPECT_EQ(adbwire({"devices"}).out, "List of devices attached\n" + serial_ + "\tdevice\n\n")
      << "the adb server does not hold it: the daemon's row";
  EXPECT_EQ(adbwire({"shell", "echo", "one"}).out, "one\n") << "the only device there is";

  // The adb server holds it too: still one device.
  ASSERT_EQ(server_.connect_and_wait(serial_), "");
  EXPECT_EQ(adbwire({"devices"}).out, "List of devices attached\n" + serial_ + "\tdevice\n\n");
  EXPECT_EQ(adbwire({"shell", "echo", "still"}).out, "still\n");

  // A second device the daemon alone holds: two, as adb says.
  VirtualDevice second;
  second.start();
  const std::string other = "127.0.0.1:" + std::to_string(second.port());
  EXPECT_EQ(adbwire({"connect", other}).out, "connected to " + other + "\n");
  const test::ProcessResult two = adbwire({"shell", "echo", "which"});
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_EQ(two.out, "");
  EXPECT_EQ(two.err.substr(0, two.err.find('\n')), "adbwire: error: more than one device/emulator");
  const test::ProcessResult listed = adbwire({"devices", "-l"});
  EXPECT_NE(listed.out.find(serial_ + " "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(other + " "), std::string::npos) << listed.out;
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 4) << listed.out;
  EXPECT_EQ(adbwire({"-e", "shell", "echo", "x"}).exit_code, 1) << "two TCP devices";
}

TEST_F(ConnectCli, DisconnectDropsTheDeviceWhereverItIsConnected) {
  ASSERT_EQ(server_.connect_and_wait(serial_), "");
  ASSERT_EQ(adbwire({"connect", serial_}).exit_code, 0);
  const test::ProcessResult dropped = adbwire({"disconnect", serial_});
  EXPECT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_EQ(dropped.out, "disconnected " + serial_ + "\n");
  EXPECT_EQ(server_.adb({"devices"}).out, "List of devices attached\n\n")
      << "the adb server let go of it too";
  EXPECT_EQ(adbwire({"devices"}).out, "List of devices attached\n\n");
  const test::ProcessResult again = adbwire({"disconnect", serial_});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.out, "");
  EXPECT_EQ(again.err.substr(0, again.err.find('\n')),
            "adbwire: error: no such device '" + serial_ + "': not found");

  // Without an address, everything, in both.
  ASSERT_EQ(server_.connect_and_wait(serial_), "");
  ASSERT_EQ(adbwire({"connect", serial_}).exit_code, 0);
  EXPECT_EQ(adbwire({"disconnect"}).out, "disconnected everything\n");
  EXPECT_EQ(server_.adb({"devices"}).out, "List of devices attached\n\n");
  EXPECT_EQ(adbwire({"devices"}).out, "List of devices attached\n\n");
}

// The transport id `devices -l` shows for serial, or 0.
std::uint64_t listed_id(const std::string& list, const std::string& serial,
                        const std::string& state) {
  const std::regex line("(^|\n)" + std::regex_replace(serial, std::regex(R"([.])"), R"(\.)") +
                        " +" + state + " .*transport_id:([0-9]+)\n");
  std::smatch found;
  return std::regex_search(list, found, line) ? std::stoull(found[2]) : 0;
}

// adb connect to a phone whose prompt is up: answered at once, the device kept and listed
// unauthorized (its transport id past the adb server's range), commands to it refused at once
// with adb's sentence, and once the person taps Allow the same connection is the device. The
// phone answers each auth step kAuthDelay late (the signature's refusal, then the key offered,
// which it accepts), so the prompt is up for kAuthDelay, room for the checks in between.
TEST_F(ConnectCli, AnUnauthorizedDeviceIsKeptAndBecomesTheDeviceWhenAllowed) {
  constexpr auto kAuthDelay = 3s;
  VirtualDeviceOptions options;
  options.auth_required = true;
  options.keys_file = temp_.path() / "adb_keys";  // this host's key is not there
  options.accept_new_keys = true;
  options.auth_delay = kAuthDelay;
  VirtualDevice phone(options);
  phone.start();
  const std::string serial = "127.0.0.1:" + std::to_string(phone.port());

  const test::ProcessResult connected = adbwire({"connect", serial});
  EXPECT_EQ(connected.exit_code, 0) << connected.err;
  EXPECT_EQ(connected.out, "failed to authenticate to " + serial + "\n");
  const std::string unauthorized = adbwire({"devices", "-l"}).out;
  const std::uint64_t id = listed_id(unauthorized, serial, "unauthorized");
  EXPECT_GT(id, 1000000u) << "a daemon-only device's id is past the adb server's: " << unauthorized;
  const test::ProcessResult refused = adbwire({"-s", serial, "shell", "echo", "hi"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err.substr(0, refused.err.find('\n')), "adbwire: error: device unauthorized.");
  EXPECT_NE(refused.err.find("check for a confirmation dialog on your device (RSA key fingerprint"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(adbwire({"connect", serial}).out, "already connected to " + serial + "\n")
      << "still waiting for the person, as adb says";

  std::string list;
  for (int i = 0; i < 100 && listed_id(list, serial, "device") == 0; ++i) {
    if (i > 0) std::this_thread::sleep_for(50ms);
    list = adbwire({"devices", "-l"}).out;
  }
  EXPECT_EQ(listed_id(list, serial, "device"), id) << "the same transport: " << list;
  EXPECT_EQ(adbwire({"-s", serial, "shell", "echo", "hi"}).out, "hi\n");
  EXPECT_EQ(adbwire({"-t", std::to_string(id), "shell", "echo", "by id"}).out, "by id\n");
  EXPECT_EQ(adbwire({"connect", serial}).out, "already connected to " + serial + "\n");
  EXPECT_EQ(phone.connections_accepted(), 1u) << "promoted on the connection it waited on";
  EXPECT_EQ(adbwire({"disconnect", serial}).out, "disconnected " + serial + "\n");
}

// -t through both: the adb server's id selects its device as adb's -t does, a daemon-only
// device's the id `devices -l` printed for it, and the daemon's own count means nothing.
TEST_F(ConnectCli, TransportIdsOfTheServerAndOfTheDaemonNeverCollide) {
  ASSERT_EQ(server_.connect_and_wait(serial_), "");
  VirtualDevice second;
  second.start();
  const std::string other = "127.0.0.1:" + std::to_string(second.port());
  ASSERT_EQ(adbwire({"connect", other}).exit_code, 0);
  const std::string list = adbwire({"devices", "-l"}).out;
  const std::uint64_t server_id = listed_id(list, serial_, "device");
  const std::uint64_t daemon_id = listed_id(list, other, "device");
  EXPECT_EQ(server_id, listed_id(server_.adb({"devices", "-l"}).out, serial_, "device")) << list;
  EXPECT_EQ(daemon_id, 1000001u) << list;
  EXPECT_EQ(adbwire({"-t", std::to_string(server_id), "get-serialno"}).out, serial_ + "\n");
  EXPECT_EQ(adbwire({"-t", std::to_string(daemon_id), "get-serialno"}).out, other + "\n");
  const test::ProcessResult raw = adbwire({"-t", "1", "get-serialno"});
  EXPECT_EQ(raw.out, serial_ + "\n") << "1 is the adb server's";
  const test::ProcessResult none = adbwire({"-t", "1000002", "get-serialno"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err.substr(0, none.err.find('\n')),
            "adbwire: error: no device with transport id '1000002': not found");
}

TEST_F(ConnectCli, ReconnectConnectsTheDaemonAgain) {
  ASSERT_EQ(adbwire({"connect", serial_}).exit_code, 0);
  const std::size_t before = device_.connections_accepted();
  const test::ProcessResult reconnected = adbwire({"-s", serial_, "reconnect"});
  EXPECT_EQ(reconnected.exit_code, 0) << reconnected.err;
  EXPECT_EQ(reconnected.out, "reconnecting " + serial_ + " [device]\n\n");
  EXPECT_EQ(device_.connections_accepted(), before + 1);
  EXPECT_EQ(adbwire({"-s", serial_, "shell", "echo", "back"}).out, "back\n");
  const test::ProcessResult usage = adbwire({"reconnect", "now"});
  EXPECT_EQ(usage.exit_code, 1);
  EXPECT_EQ(usage.err, "adbwire: usage: adbwire reconnect [device|offline]\n");
}

TEST_F(ConnectCli, WithASessionConnectIsTheSessionVerb) {
  ASSERT_EQ(adbwire({"open", "--session", "s", serial_}).exit_code, 0);
  VirtualDevice second;
  second.start();
  const test::ProcessResult verb = adbwire({"--session", "s", "connect", second.target()});
  EXPECT_EQ(verb.exit_code, 0) << verb.err;
  EXPECT_EQ(verb.out.rfind("Connected to " + second.target() + " (", 0), 0u) << verb.out;
  // The session's connection is the daemon's: adb's connect finds it held.
  const std::string other = second.target().substr(4);
  EXPECT_EQ(adbwire({"connect", other}).out, "already connected to " + other + "\n");
  EXPECT_EQ(adbwire({"close", "--session", "s"}).exit_code, 0);
}

TEST_F(ConnectCli, KillServerEndsEveryBackgroundProcessOfTheUser) {
  ASSERT_EQ(adbwire({"connect", serial_}).exit_code, 0);
  // Another adbwire of this user (another HOME: another daemon) in the same runtime folder.
  fs::create_directories(temp_.path() / "other-home");
  ASSERT_EQ(adbwire({"start-server"}, {"HOME=" + (temp_.path() / "other-home").string()}).exit_code,
            0);
  ASSERT_EQ(sockets().size(), 2u);
  test::Background forward({ADBWIRE_CLI_PATH, "-s", serial_, "forward", "tcp:0", "tcp:5000"}, env_);
  EXPECT_NE(forward.first_line().find(" -> "), std::string::npos);

  const test::ProcessResult killed = adbwire({"kill-server"});
  EXPECT_EQ(killed.exit_code, 0) << killed.err;
  EXPECT_TRUE(sockets().empty());
  EXPECT_NE(forward.exit_code(10s), test::Background::kRunning) << "the forward process runs on";
  EXPECT_EQ(adbwire({"kill-server"}).exit_code, 0) << "nothing to end is no error";
  // The next command starts the daemon again.
  EXPECT_EQ(adbwire({"-s", serial_, "shell", "echo", "new"}).out, "new\n");
  EXPECT_EQ(sockets().size(), 1u);
}

// text without the system's reason in parentheses: a peer that hangs up reads as "End of file"
// or "Connection reset by peer" depending on whether our first bytes reached it first.
std::string without_reason(const std::string& text) {
  static const std::regex kReason(R"( \([^)]*\))");
  return std::regex_replace(text, kReason, "");
}

// The first line of an adbwire error without its "adbwire: error: " and its code's name.
std::string sentence_of(const std::string& err) {
  std::string line = err.substr(0, err.find('\n'));
  const std::string prefix = "adbwire: error: ";
  if (line.starts_with(prefix)) line.erase(0, prefix.size());
  return without_reason(line.substr(0, line.rfind(": ")));
}

TEST_F(ConnectCli, APortThatHangsUpOrNeverAnswersReadsAsOnADirectConnection) {
  for (const bool hang_up : {true, false}) {
    const BadPort port(hang_up);
    const std::string what = hang_up ? "hangs up" : "never answers";
    const test::ProcessResult direct =
        adbwire({"--no-daemon", "-s", port.serial(), "shell", "true"});
    const test::ProcessResult held = adbwire({"-s", port.serial(), "shell", "true"});
    EXPECT_EQ(direct.exit_code, 1) << what;
    EXPECT_EQ(held.exit_code, direct.exit_code) << what;
    EXPECT_EQ(held.out, "") << what;
    EXPECT_EQ(without_reason(held.err), without_reason(direct.err)) << what;
    EXPECT_NE(held.err.find(hang_up ? "device offline" : "timed out"), std::string::npos)
        << what << ": " << held.err;
    // connect says so as adb does, on stdout, exit 0: with the direct connection's sentence.
    const test::ProcessResult connected = adbwire({"connect", port.serial()});
    EXPECT_EQ(connected.exit_code, 0) << what;
    EXPECT_EQ(without_reason(connected.out),
              "failed to connect to '" + port.serial() + "': " + sentence_of(direct.err) + "\n")
        << what;
  }
}

}  // namespace
}  // namespace adbwire
