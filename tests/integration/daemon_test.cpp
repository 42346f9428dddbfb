// The daemon (src/daemon, docs/daemon.md) as users and adb's own clients meet it: one-shot calls
// and sessions sharing one device connection, a daemon that reconnects after its device restarts,
// the opt-outs, a private socket that nothing planted can stand in for, the idle end,
// start-server and kill-server, connect errors worded as without a daemon, a front that loads no
// heavy library, and the real adb client driving the virtual device through `adbwire server`.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "integration/daemon_fixture.hpp"

namespace adbwire {
namespace {

using namespace test;  // the fixture and its helpers

TEST_F(Daemon, OneShotCallsShareOneConnection) {
  VirtualDevice vd;
  vd.start();
  // Four first calls at once: the lock lets one start the daemon, the others use it.
  std::vector<std::thread> calls;
  std::vector<test::ProcessResult> results(4);
  for (std::size_t i = 0; i < results.size(); ++i) {
    calls.emplace_back([&, i] {
      results[i] = adbwire({"-s", vd.target(), "shell", "echo", "call" + std::to_string(i)});
    });
  }
  for (std::thread& call : calls) call.join();
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].exit_code, 0) << results[i].err;
    EXPECT_EQ(results[i].out, "call" + std::to_string(i) + "\n");
  }
  const test::ProcessResult status = adbwire({"-s", vd.target(), "shell", "exit 7"});
  EXPECT_EQ(status.exit_code, 7);
  const test::ProcessResult piped = adbwire({"-s", vd.target(), "shell", "cat"}, {}, "abc");
  EXPECT_EQ(piped.out, "abc") << piped.err;
  const test::ProcessResult exec = adbwire({"-s", vd.target(), "exec-out", "echo", "raw"});
  EXPECT_EQ(exec.out, "raw\n") << exec.err;
  EXPECT_EQ(vd.connections_accepted(), 1u);
  EXPECT_EQ(sockets().size(), 1u);
}

// What the issue measured before: a session and a one-shot command on one target opened two
// connections to the device. Every command of the full program goes through the daemon too.
TEST_F(Daemon, SessionsOneShotsAndEveryCommandShareOneConnection) {
  VirtualDevice vd;
  vd.start();
  const test::ProcessResult opened = adbwire({"open", vd.target()});
  ASSERT_EQ(opened.exit_code, 0) << opened.err;
  EXPECT_NE(opened.out.find(only_socket().string()), std::string::npos) << opened.out;
  EXPECT_EQ(adbwire({"press", "home"}).exit_code, 0);
  EXPECT_EQ(adbwire({"-s", vd.target(), "shell", "echo", "one-shot"}).out, "one-shot\n");
  const test::ProcessResult prop = adbwire({"-s", vd.target(), "getprop", "ro.serialno"});
  EXPECT_EQ(prop.out, "adbwire-vdevice\n") << prop.err;
  const fs::path local = dir_.path() / "pushed.txt";
  std::ofstream(local) << "through the daemon\n";
  EXPECT_EQ(
      adbwire({"-s", vd.target(), "push", "-q", local.string(), "/data/local/tmp/p.txt"}).exit_code,
      0);
  EXPECT_EQ(adbwire({"-s", vd.target(), "exec-out", "cat", "/data/local/tmp/p.txt"}).out,
            "through the daemon\n");
  const test::ProcessResult sessions = adbwire({"sessions"});
  EXPECT_NE(sessions.out.find("default " + vd.target()), std::string::npos) << sessions.out;
  EXPECT_EQ(adbwire({"close"}).exit_code, 0);
  EXPECT_EQ(vd.connections_accepted(), 1u);
  EXPECT_EQ(sockets().size(), 1u);
}

TEST_F(Daemon, ReconnectsAfterTheDeviceRestartsOnTheSamePort) {
  VirtualDeviceOptions options;
  auto first = std::make_unique<VirtualDevice>(options);
  first->start();
  const std::string target = first->target();
  ASSERT_EQ(adbwire({"-s", target, "shell", "echo", "before"}).out, "before\n");
  options.port = first->port();
  first->stop();
  first.reset();
  VirtualDevice second(options);
  second.start();

  const test::ProcessResult after = adbwire({"-s", target, "shell", "echo", "after"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, "after\n");
  EXPECT_NE(after.err.find("adbwire: reconnected to " + target), std::string::npos) << after.err;
  const test::ProcessResult again = adbwire({"-s", target, "shell", "echo", "again"});
  EXPECT_EQ(again.out, "again\n");
  EXPECT_EQ(again.err, "") << "the reconnect is said once";
  EXPECT_EQ(second.connections_accepted(), 1u);
  EXPECT_EQ(sockets().size(), 1u) << "the same daemon reconnected";
}

TEST_F(Daemon, ADropUnderAStreamIsAnErrorNotAnEnd) {
  auto vd = std::make_unique<VirtualDevice>();
  vd->start();
  const std::string target = vd->target();
  ASSERT_EQ(adbwire({"-s", target, "shell", "true"}).exit_code, 0);
  test::ProcessResult exec;
  std::thread call([&] { exec = adbwire({"-s", target, "exec-out", "sleep", "20"}); });
  std::this_thread::sleep_for(300ms);
  vd->stop();
  call.join();
  EXPECT_FALSE(exec.timed_out);
  EXPECT_EQ(exec.exit_code, 1);
  EXPECT_NE(exec.err.find("device offline"), std::string::npos) << exec.err;
}

TEST_F(Daemon, OptOutsAndRecordingConnectDirectly) {
  VirtualDevice vd;
  vd.start();
  const std::string target = vd.target();
  EXPECT_EQ(adbwire({"--no-daemon", "-s", target, "shell", "echo", "flag"}).out, "flag\n");
  EXPECT_EQ(adbwire({"--no-holder", "-s", target, "shell", "echo", "alias"}).out, "alias\n");
  EXPECT_EQ(adbwire({"-s", target, "exec-out", "echo", "var"}, {"ADBWIRE_NO_DAEMON=1"}).out,
            "var\n");
  EXPECT_EQ(adbwire({"-s", target, "exec-out", "echo", "old"}, {"ADBWIRE_NO_HOLDER=1"}).out,
            "old\n");
  EXPECT_EQ(adbwire({"--no-daemon", "-s", target, "getprop", "ro.serialno"}).out,
            "adbwire-vdevice\n");
  const fs::path capture = dir_.path() / "shell.pcapng";
  const test::ProcessResult recorded =
      adbwire({"--record", capture.string(), "-s", target, "shell", "echo", "rec"});
  EXPECT_EQ(recorded.out, "rec\n") << recorded.err;
  EXPECT_GT(fs::file_size(capture), 0u);
  EXPECT_EQ(vd.connections_accepted(), 6u);
  EXPECT_TRUE(sockets().empty()) << "an opted-out call started a daemon";

  EXPECT_EQ(adbwire({"-s", target, "shell", "echo", "held"}, {"ADBWIRE_NO_DAEMON=0"}).out,
            "held\n");
  EXPECT_EQ(sockets().size(), 1u);
}

TEST_F(Daemon, SocketIsPrivate) {
  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const fs::path socket = only_socket();
  struct stat st {};
  ASSERT_EQ(::lstat(socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(mode_of(socket), 0600u);
  EXPECT_EQ(mode_of(folder()), 0700u);
}

TEST_F(Daemon, PlantedPathsAreRefusedAndLeftAlone) {
  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const fs::path socket = only_socket();
  kill_daemon(socket);
  const fs::path elsewhere = dir_.path() / "elsewhere";

  auto expect_refused = [&](std::string_view why) {
    for (const std::vector<std::string>& call :
         {std::vector<std::string>{"-s", vd.target(), "shell", "echo", "no"},
          std::vector<std::string>{"tap", "1"}, std::vector<std::string>{"kill-server"}}) {
      const test::ProcessResult run = adbwire(call);
      EXPECT_EQ(run.exit_code, 1) << why;
      EXPECT_EQ(run.out, "") << why;
      EXPECT_NE(run.err.find("refusing the adbwire daemon's socket " + socket.string()),
                std::string::npos)
          << run.err;
      EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("--no-daemon"), std::string::npos) << run.err;
    }
  };

  fs::remove(socket);
  fs::create_symlink(elsewhere, socket);
  expect_refused("it is a symbolic link");
  EXPECT_TRUE(fs::is_symlink(socket)) << "the planted link was replaced";
  EXPECT_FALSE(fs::exists(elsewhere)) << "something was made through the link";

  fs::remove(socket);
  std::ofstream(socket) << "planted";
  expect_refused("it is not a socket");
  EXPECT_EQ(test::read_file(socket), "planted");

  fs::remove(socket);
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ::chmod(socket.c_str(), 0666);
  expect_refused("its mode is 0666, open to other users");
  // Nothing was sent to what listens there.
  pollfd pending{listener, POLLIN, 0};
  EXPECT_EQ(::poll(&pending, 1, 0), 0) << "a refused call connected to the planted socket";
  ::close(listener);
  EXPECT_EQ(vd.connections_accepted(), 1u) << "a refused call reached the device";
}

TEST_F(Daemon, ASquattedRuntimeFolderNamesTheWaysOut) {
  fs::create_directories(folder());
  ::chmod(folder().c_str(), 0777);
  const test::ProcessResult run = adbwire({"-s", "tcp:127.0.0.1:1", "shell", "true"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("XDG_RUNTIME_DIR"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--no-daemon"), std::string::npos) << run.err;
  EXPECT_EQ(mode_of(folder()), 0777u) << "the folder was changed";
}

// Another user's socket at the path, and this user's socket answered by another user's
// process: both need a second user, so this test runs as root (as the CI container does).
TEST_F(Daemon, AnotherUsersSocketOrProcessIsRefused) {
  ASSERT_EQ(::geteuid(), 0u) << "this test plants another user's socket: run it as root";
  // A socket made and served by user nobody, in a folder nobody may write; forked before any
  // thread of ours starts, so the child runs no code another thread had half done.
  const fs::path open_folder = test::folder_open_to_nobody(dir_.path());
  const std::string made = (open_folder / "s.sock").string();
  test::NobodysSocket theirs(made);
  const pid_t child = theirs.pid();
  ASSERT_TRUE(theirs.listening()) << "user nobody could not listen in " << open_folder;

  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const fs::path socket = only_socket();
  kill_daemon(socket);
  ASSERT_EQ(::rename(made.c_str(), socket.c_str()), 0) << std::strerror(errno);
  ::chmod(socket.c_str(), 0600);

  const test::ProcessResult other_owner = adbwire({"-s", vd.target(), "shell", "true"});
  EXPECT_EQ(other_owner.exit_code, 1);
  EXPECT_NE(other_owner.err.find("it belongs to user 65534"), std::string::npos) << other_owner.err;

  ASSERT_EQ(::chown(socket.c_str(), 0, 0), 0);
  for (const std::vector<std::string>& call :
       {std::vector<std::string>{"-s", vd.target(), "shell", "true"},
        std::vector<std::string>{"snapshot"}}) {
    const test::ProcessResult other_process = adbwire(call);
    EXPECT_EQ(other_process.exit_code, 1);
    EXPECT_NE(other_process.err.find("the process answering there runs as user 65534"),
              std::string::npos)
        << other_process.err;
  }
  EXPECT_EQ(listener_pid(socket), child) << "the planted socket was replaced";
  EXPECT_EQ(vd.connections_accepted(), 1u) << "a refused call reached the device";
  EXPECT_EQ(theirs.heard(), "") << "another user's process received a request";
}

TEST_F(Daemon, EndsWhenIdle) {
  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}, {"ADBWIRE_DAEMON_IDLE=1"}).exit_code, 0);
  const fs::path socket = only_socket();
  const pid_t pid = listener_pid(socket);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(
      wait_until([&] { return !fs::exists(fs::symlink_status(socket)) && ended(pid); }, 10s))
      << "the daemon outlived its idle second";
  EXPECT_TRUE(sockets().empty()) << "the daemon left its socket";
  EXPECT_FALSE(fs::exists(socket.parent_path() / (socket.stem().string() + ".lock")))
      << "the daemon left its lock file";
  // The next call starts a new one.
  EXPECT_EQ(adbwire({"-s", vd.target(), "shell", "echo", "new"}).out, "new\n");
  EXPECT_EQ(vd.connections_accepted(), 2u);
}

TEST_F(Daemon, StartServerAndKillServer) {
  const test::ProcessResult started = adbwire({"start-server"});
  EXPECT_EQ(started.exit_code, 0) << started.err;
  const fs::path socket = only_socket();
  // adb's two lines, which scripts wait for.
  EXPECT_EQ(started.err, "* daemon not running; starting now at unix:" + socket.string() +
                             "\n* daemon started successfully\n");
  const pid_t pid = listener_pid(socket);
  ASSERT_GT(pid, 0);
  const test::ProcessResult again = adbwire({"start-server"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.err, "") << "a running daemon is left alone";
  EXPECT_EQ(listener_pid(socket), pid);

  VirtualDevice vd;
  vd.start();
  ASSERT_EQ(adbwire({"-s", vd.target(), "shell", "true"}).exit_code, 0);
  const test::ProcessResult killed = adbwire({"kill-server"});
  EXPECT_EQ(killed.exit_code, 0) << killed.err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(socket)));
  EXPECT_TRUE(wait_until([pid] { return ended(pid); }, 10s));
  EXPECT_EQ(adbwire({"kill-server"}).exit_code, 0) << "no daemon is not an error";
  EXPECT_EQ(adbwire({"-s", vd.target(), "shell", "echo", "new"}).out, "new\n");
  EXPECT_EQ(vd.connections_accepted(), 2u) << "a new daemon connected again";
}

TEST_F(Daemon, ConnectErrorsReadAsWithoutADaemon) {
  const std::string target = "tcp:127.0.0.1:" + std::to_string(test::free_port());
  const test::ProcessResult held = adbwire({"-s", target, "shell", "true"});
  const test::ProcessResult direct = adbwire({"--no-daemon", "-s", target, "shell", "true"});
  EXPECT_EQ(held.exit_code, 1);
  EXPECT_EQ(held.exit_code, direct.exit_code);
  EXPECT_NE(direct.err.find("adbwire: error: "), std::string::npos) << direct.err;
  EXPECT_EQ(held.err, direct.err);
  EXPECT_EQ(ask(only_socket(), "host:devices"), "OKAY0000")
      << "a device that never connected is held";
}

TEST_F(Daemon, FrontLinksNoHeavyLibrary) {
  const test::ProcessResult front = test::run_process({"/usr/bin/ldd", ADBWIRE_CLI_PATH}, {}, {});
  ASSERT_EQ(front.exit_code, 0) << "ldd (Debian package libc-bin) is needed: " << front.err;
  for (const char* heavy :
       {"libssl", "libcrypto", "libusb", "pugixml", "spng", "turbojpeg", "brotli", "lz4", "zstd"}) {
    EXPECT_EQ(front.out.find(heavy), std::string::npos) << heavy << " in\n" << front.out;
  }
  if (ADBWIRE_FRONT_STATIC_LIBSTDCXX) {
    EXPECT_EQ(front.out.find("libstdc++"), std::string::npos) << front.out;
  }
  // The check can fail: the full program loads them.
  const fs::path full = fs::path(ADBWIRE_CLI_PATH).parent_path() / "adbwire-full";
  const test::ProcessResult all = test::run_process({"/usr/bin/ldd", full.string()}, {}, {});
  EXPECT_NE(all.out.find("libssl"), std::string::npos) << all.out;
}

TEST_F(Daemon, OtherCommandsRunInTheFullProgram) {
  const test::ProcessResult help = adbwire({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("pull"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--no-daemon"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("kill-server"), std::string::npos) << help.out;
  const fs::path full = fs::path(ADBWIRE_CLI_PATH).parent_path() / "adbwire-full";
  const test::ProcessResult version = adbwire({"version"});
  EXPECT_EQ(version.out.substr(0, 8), "adbwire ");
  EXPECT_EQ(version.out, test::run_process({full.string(), "version"}, {}, {}).out);

  // The full program takes over the process: same pid, its image.
  test::Background vdevice({ADBWIRE_CLI_PATH, "vdevice", "--port", "0"}, env());
  EXPECT_NE(vdevice.first_line().find("listening"), std::string::npos);
  std::error_code error;
  EXPECT_EQ(fs::read_symlink("/proc/" + std::to_string(vdevice.pid()) + "/exe", error).filename(),
            "adbwire-full");
}

// adbwire's server on TCP, driven by the real adb client (Debian's): connect, devices, shell,
// get-state, disconnect, kill-server.
TEST_F(Daemon, TheRealAdbClientDrivesADeviceThroughTheServer) {
  const std::string adb = test::find_adb();
  ASSERT_FALSE(adb.empty()) << "adb is needed: apt-get install adb (or run scripts/setup)";
  VirtualDevice vd;
  vd.start();
  const std::uint16_t port = test::free_port();
  test::Background server(
      {ADBWIRE_CLI_PATH, "server", "--listen", "127.0.0.1:" + std::to_string(port)}, env());
  ASSERT_NE(server.first_line().find("listening on 127.0.0.1:" + std::to_string(port)),
            std::string::npos);
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
  auto run_adb = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {adb, "-P", std::to_string(port)});
    return test::run_process(std::move(args), env(), {}, kWait);
  };
  const test::ProcessResult connected = run_adb({"connect", serial});
  EXPECT_EQ(connected.out, "connected to " + serial + "\n") << connected.err;
  EXPECT_EQ(run_adb({"connect", serial}).out, "already connected to " + serial + "\n");
  const test::ProcessResult devices = run_adb({"devices", "-l"});
  EXPECT_NE(devices.out.find(serial), std::string::npos) << devices.out;
  EXPECT_NE(devices.out.find(" device "), std::string::npos) << devices.out;
  EXPECT_NE(devices.out.find("transport_id:"), std::string::npos) << devices.out;
  const test::ProcessResult shell = run_adb({"-s", serial, "shell", "echo hi; exit 3"});
  EXPECT_EQ(shell.out, "hi\n") << shell.err;
  EXPECT_EQ(shell.exit_code, 3) << "the shell protocol's exit status came through";
  EXPECT_EQ(run_adb({"-s", serial, "get-state"}).out, "device\n");
  EXPECT_EQ(run_adb({"-s", serial, "get-serialno"}).out, serial + "\n");
  const test::ProcessResult unknown = run_adb({"-s", "nosuch", "shell", "true"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("device 'nosuch' not found"), std::string::npos) << unknown.err;
  EXPECT_EQ(run_adb({"disconnect", serial}).out, "disconnected " + serial + "\n");
  EXPECT_EQ(run_adb({"devices"}).out, "List of devices attached\n\n");
  EXPECT_EQ(run_adb({"kill-server"}).exit_code, 0);
  EXPECT_EQ(server.exit_code(10s), 0) << "host:kill ended the server";
  EXPECT_EQ(vd.connections_accepted(), 1u);
}

// The adb server protocol has no authentication: on TCP, adbwire's own requests (sessions that
// write files, connects of any target) are not served, and a listener anyone can reach says so.
TEST_F(Daemon, TcpClientsGetAdbsServicesOnlyAndAnOpenAddressIsWarnedOf) {
  const std::uint16_t port = test::free_port();
  test::Background server(
      {ADBWIRE_CLI_PATH, "server", "--listen", "0.0.0.0:" + std::to_string(port)}, env());
  const std::string warning = server.first_line();
  EXPECT_NE(warning.find("warning"), std::string::npos) << warning;
  EXPECT_NE(warning.find("controls every device"), std::string::npos) << warning;
  EXPECT_EQ(answer_of(test::connect_loopback(port), "host:adbwire-sessions"),
            "FAIL0014unknown host service");
}

// A device that goes silent without closing the link (a phone asleep, a stalled network): the
// call that meets it times out, and the second in a row makes the daemon connect again instead of
// letting every later call wait out its deadline.
TEST_F(Daemon, ADeviceGoneSilentIsConnectedAgainAfterTwoTimeouts) {
  VirtualDeviceOptions options;
  options.fault.kind = ConnectionFault::silent;
  options.fault.connections = 1;  // the daemon's first connection only
  VirtualDevice vd(options);
  vd.start();
  const std::vector<std::string> wait = {"ADBWIRE_DAEMON_OPEN_WAIT=1"};
  const auto start = Clock::now();
  const test::ProcessResult first = adbwire({"-s", vd.target(), "shell", "echo", "one"}, wait);
  EXPECT_EQ(first.exit_code, 1);
  EXPECT_NE(first.err.find("timed out"), std::string::npos) << first.err;
  const test::ProcessResult second = adbwire({"-s", vd.target(), "shell", "echo", "two"}, wait);
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "two\n");
  EXPECT_NE(second.err.find("reconnected to " + vd.target()), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("answered nothing for 2 calls in a row"), std::string::npos)
      << second.err;
  EXPECT_LT(Clock::now() - start, 20s);
  EXPECT_EQ(adbwire({"-s", vd.target(), "shell", "echo", "three"}, wait).out, "three\n");
  EXPECT_EQ(vd.connections_accepted(), 2u);
  EXPECT_EQ(sockets().size(), 1u) << "the same daemon connected again";
}

// A device banner far over 64 KiB (one daemon frame) passes through the daemon whole.
TEST_F(Daemon, ALongBannerPassesThroughTheDaemonIntact) {
  VirtualDeviceOptions options;
  options.fault.kind = ConnectionFault::long_banner;
  options.fault.after_bytes = 200000;
  options.fault.connections = 0;
  VirtualDevice vd(options);
  vd.start();
  for (int call = 0; call < 2; ++call) {  // the call that starts the daemon, and one after
    const test::ProcessResult run = adbwire({"-s", vd.target(), "shell", "echo", "ok"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "ok\n");
  }
  const test::ProcessResult state = adbwire({"-s", vd.target(), "exec-out", "echo", "raw"});
  EXPECT_EQ(state.out, "raw\n") << state.err;
  EXPECT_EQ(vd.connections_accepted(), 1u);
}

// Another user made the runtime folder first: one-shot calls are refused with the ways out
// named (XDG_RUNTIME_DIR, --no-daemon), and --no-daemon works (--no-holder, its old name, too).
TEST_F(Daemon, ARuntimeFolderOfAnotherUserNamesTheWaysOut) {
  ASSERT_EQ(::geteuid(), 0u) << "this test makes a folder of another user: run it as root";
  VirtualDevice vd;
  vd.start();
  const fs::path squatted = runtime() / "adbwire";
  fs::create_directories(squatted);
  ASSERT_EQ(::chown(squatted.c_str(), test::kNobody, test::kNobody), 0);
  ::chmod(squatted.c_str(), 0700);
  const test::ProcessResult held = adbwire({"-s", vd.target(), "shell", "echo", "hi"});
  EXPECT_EQ(held.exit_code, 1);
  EXPECT_NE(held.err.find("belongs to another user (uid 65534)"), std::string::npos) << held.err;
  EXPECT_NE(held.err.find("XDG_RUNTIME_DIR"), std::string::npos) << held.err;
  EXPECT_NE(held.err.find("--no-daemon"), std::string::npos) << held.err;
  EXPECT_EQ(vd.connections_accepted(), 0u);
  for (const char* opt_out : {"--no-daemon", "--no-holder"}) {
    const test::ProcessResult direct = adbwire({opt_out, "-s", vd.target(), "shell", "echo", "hi"});
    EXPECT_EQ(direct.exit_code, 0) << direct.err;
    EXPECT_EQ(direct.out, "hi\n");
  }
  const test::ProcessResult session = adbwire({"open", vd.target()});
  EXPECT_EQ(session.exit_code, 1);
  EXPECT_NE(session.err.find("XDG_RUNTIME_DIR"), std::string::npos) << session.err;
  EXPECT_TRUE(fs::is_empty(squatted)) << "nothing was written into another user's folder";
}

}  // namespace
}  // namespace adbwire
