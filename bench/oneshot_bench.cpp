// One-shot CLI calls as a user makes them, each a process from spawn to exit: `adbwire -s tcp:…
// shell true` (the lean front through the daemon) against the real AOSP
// `adb -s SERIAL shell true` through a private adb server that already holds the device, both
// against the same virtual device (a process of its own) in the same run; and the front's start
// (`adbwire version`) against /bin/true. Then an agent's step in a CLI session: `adbwire tap 3`
// (the front, straight to the daemon's session, whose Page re-reads the screen to check the ref
// before it taps) against the same verb through the full program, and against what an agent
// driving adb runs for a tap, `adb shell input tap X Y` (no check of what is under the point).
//
// Last, what holding devices costs: the daemon's resident memory with 1 and with 16 devices
// connected (each served one `shell true`), against the adb server holding the same 16.
//
// Usage: oneshot_bench [N]   (N calls per steady-state variant, default 200; first calls: 15)
// Steady-state variants alternate call by call, so machine noise falls on each alike. A first
// call runs with a fresh runtime folder (no daemon yet): it starts the daemon, whose connect is
// part of the time. `--no-daemon` (the full program connecting directly, the path before the
// daemon) is shown for reference.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "support/bench_support.hpp"

namespace {

namespace fs = std::filesystem;
using adbwire::bench::median_ms;

// Runs argv (stdin, stdout and stderr on /dev/null) and returns how long it took, spawn to
// reaped, in milliseconds. Throws when it fails.
double timed_run(std::vector<std::string> argv, std::vector<std::string> env) {
  std::vector<char*> args;
  for (std::string& word : argv) args.push_back(word.data());
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid) {
    throw adbwire::Error(adbwire::errc::io_error, "cannot run " + argv[0]);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw adbwire::Error(adbwire::errc::command_failed, argv[0] + " " + argv.back() + " failed");
  }
  return ms;
}

// A scratch folder; as a runtime folder, one no daemon has used yet (a first call meets none),
// whose daemon ends with it.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::random_device random;
    path_ = fs::temp_directory_path() / ("adbwire-oneshot-" + std::to_string(random()));
    fs::create_directories(path_);
    fs::permissions(path_, fs::perms::owner_all);
  }
  ~ScratchFolder() {
    std::error_code error;
    const pid_t pid = daemon_pid();
    if (pid > 0) ::kill(pid, SIGTERM);
    fs::remove_all(path_, error);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const fs::path& path() const { return path_; }

  // As a runtime folder: the daemon listening at its socket there (SO_PEERCRED), or -1.
  pid_t daemon_pid() const {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(path_ / "adbwire", error)) {
      if (entry.path().extension() == ".sock") return listener(entry.path());
    }
    return -1;
  }

 private:
  static pid_t listener(const fs::path& socket) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket.c_str(), sizeof address.sun_path - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ucred peer{};
    socklen_t size = sizeof peer;
    const bool known =
        ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 && peer.pid > 0;
    ::close(fd);
    return known ? peer.pid : -1;
  }
  fs::path path_;
};

// A process's resident memory (VmRSS), in MiB; throws when it cannot be read.
double rss_mib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) return std::stod(line.substr(6)) / 1024.0;
  }
  throw adbwire::Error(adbwire::errc::not_found, "no VmRSS for process " + std::to_string(pid));
}

constexpr int kHeldDevices = 16;

// A command line, its environment and its times.
struct Timed {
  const std::vector<std::string>& argv;
  const std::vector<std::string>& env;
  std::vector<double>& times;
};

// n calls of ours and of adb's, alternating so a busy moment falls on both alike, and every 4th
// round one of the full program's (the slow one, measured less often).
void alternate(int n, const Timed& ours, const Timed& adbs, const Timed& full) {
  for (int i = 0; i < n; ++i) {
    ours.times.push_back(timed_run(ours.argv, ours.env));
    adbs.times.push_back(timed_run(adbs.argv, adbs.env));
    if (i % 4 == 0) full.times.push_back(timed_run(full.argv, full.env));
  }
}

int run(int n) {
  const fs::path cli = fs::path(ADBWIRE_CLI_PATH);
  const ScratchFolder device_files;
  fs::create_directories(device_files.path() / "root");
  const adbwire::bench::ForkedVirtualDevice vd(device_files.path() / "root");
  // The other devices of the memory measure, forked now, before anything starts a thread.
  std::vector<std::unique_ptr<adbwire::bench::ForkedVirtualDevice>> more;
  for (int i = 1; i < kHeldDevices; ++i) {
    const fs::path root = device_files.path() / ("root-" + std::to_string(i));
    fs::create_directories(root);
    more.push_back(std::make_unique<adbwire::bench::ForkedVirtualDevice>(root));
  }
  const std::string target = vd.target();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
  const adbwire::bench::PrivateAdb adb;
  adb.connect_device(vd.port());
  // adb's client on the private server, on the device's serial, running words.
  const auto adb_command = [&](std::vector<std::string> words) {
    words.insert(words.begin(),
                 {adbwire::bench::kAdb, "-P", std::to_string(adb.port()), "-s", serial});
    return words;
  };
  const std::vector<std::string> adb_call = adb_command({"shell", "true"});
  // A HOME of the bench's own: the user's paired phones would make each daemon start listen
  // for them, and the user's key is not the bench's to use.
  const fs::path home = device_files.path() / "home";
  auto adbwire_env = [&home](const fs::path& runtime) {
    return std::vector<std::string>{"XDG_RUNTIME_DIR=" + runtime.string(), "HOME=" + home.string(),
                                    "PATH=/usr/bin:/bin"};
  };
  const std::vector<std::string> adbwire_call = {cli.string(), "-s", target, "shell", "true"};

  // Steady state: one daemon, warmed; adbwire and adb alternate call by call. Spread over the
  // same run: first calls (each with a fresh runtime folder, so it starts a daemon) and direct
  // calls (--no-daemon), so a busy moment of the machine falls on every variant alike.
  const ScratchFolder runtime;
  const std::vector<std::string> env = adbwire_env(runtime.path());
  for (int i = 0; i < 10; ++i) {
    timed_run(adbwire_call, env);
    timed_run(adb_call, adb.environment());
  }
  constexpr int kFirstCalls = 20;
  const int every = std::max(1, n / kFirstCalls);
  std::vector<double> held, adb_shell, first, direct, version, full_version, bin_true;
  std::vector<std::string> direct_call = adbwire_call;
  direct_call.insert(direct_call.begin() + 1, "--no-daemon");
  for (int i = 0; i < n; ++i) {
    held.push_back(timed_run(adbwire_call, env));
    adb_shell.push_back(timed_run(adb_call, adb.environment()));
    if (i % every == 0) {
      const ScratchFolder fresh;
      first.push_back(timed_run(adbwire_call, adbwire_env(fresh.path())));
      direct.push_back(timed_run(direct_call, env));
    }
  }
  // A small file pushed, one process per push: what a push costs beyond the device's work is the
  // program's start. The front pushes through the daemon; adbwire-full (every 4th call) is the
  // program that served push before.
  const fs::path small = device_files.path() / "small.bin";
  std::ofstream(small, std::ios::binary) << std::string(4096, 'p');
  const fs::path full = cli.parent_path() / "adbwire-full";
  const std::vector<std::string> front_push = {
      cli.string(), "-s", target, "push", small.string(), "/data/local/tmp/small.bin"};
  std::vector<std::string> full_push = front_push;
  full_push.front() = full.string();
  const std::vector<std::string> adb_push =
      adb_command({"push", small.string(), "/data/local/tmp/small.bin"});
  std::vector<double> front_pushes, full_pushes, adb_pushes;
  alternate(n, {front_push, env, front_pushes}, {adb_push, adb.environment(), adb_pushes},
            {full_push, env, full_pushes});

  // A session on the same device: one snapshot gives the refs, then taps (the sample screen
  // does not change when tapped, so ref 3 stays valid).
  timed_run({cli.string(), "open", "--session", "bench", target}, env);
  timed_run({cli.string(), "--session", "bench", "snapshot"}, env);
  const std::vector<std::string> session_tap = {cli.string(), "--session", "bench", "tap", "3"};
  const std::vector<std::string> full_tap = {full.string(), "--session", "bench", "tap", "3"};
  const std::vector<std::string> adb_tap = adb_command({"shell", "input", "tap", "540", "640"});
  std::vector<double> front_taps, full_taps, adb_taps;
  alternate(n, {session_tap, env, front_taps}, {adb_tap, adb.environment(), adb_taps},
            {full_tap, env, full_taps});
  timed_run({cli.string(), "close", "--session", "bench"}, env);

  // Holding devices: the daemon (one device so far) and the adb server, then both with 16.
  const pid_t daemon = runtime.daemon_pid();
  const double daemon_one = rss_mib(daemon);
  const double adb_one = rss_mib(adb.server_pid());
  for (const auto& device : more) {
    timed_run({cli.string(), "-s", device->target(), "shell", "true"}, env);
    adb.connect_device(device->port());
  }
  const double daemon_all = rss_mib(daemon);
  const double adb_all = rss_mib(adb.server_pid());
  for (int i = 0; i < n; ++i) {
    version.push_back(timed_run({cli.string(), "version"}, env));
    bin_true.push_back(timed_run({"/bin/true"}, env));
    if (i % 4 == 0) full_version.push_back(timed_run({full.string(), "version"}, env));
  }

  const double held_ms = median_ms(held);
  const double adb_ms = median_ms(adb_shell);
  const double first_ms = median_ms(first);
  const double version_ms = median_ms(version);
  const double true_ms = median_ms(bin_true);
  const std::string adb_label = "adb -s " + serial + " shell true (server)";
  auto row = [](const std::string& label, double ms, const std::string& note) {
    std::printf("  %-44s %8.3f ms%s\n", label.c_str(), ms, note.c_str());
  };
  std::printf("one-shot calls, spawn to exit, median (virtual device on loopback; N = %d)\n", n);
  row("adbwire shell true, daemon running", held_ms, "");
  row(adb_label, adb_ms, "");
  row("adbwire shell true, first call", first_ms,
      "   (" + std::to_string(first.size()) + " calls, each starting the daemon)");
  row("adbwire --no-daemon shell true", median_ms(direct),
      "   (" + std::to_string(direct.size()) + " calls, direct connect)");
  row("adbwire version (the front's start)", version_ms, "");
  row("adbwire-full version", median_ms(full_version),
      "   (" + std::to_string(full_version.size()) + " calls)");
  row("/bin/true", true_ms, "");
  // The front's, the full program's and adb's rows of one call; the front's median / adb's.
  auto three_rows = [&row](const char* front, const char* full, const char* adb_label,
                           const std::vector<double>& front_ms, const std::vector<double>& full_ms,
                           const std::vector<double>& adb_ms) {
    row(front, median_ms(front_ms), "");
    row(full, median_ms(full_ms), "   (" + std::to_string(full_ms.size()) + " calls)");
    row(adb_label, median_ms(adb_ms), "");
    return median_ms(front_ms) / median_ms(adb_ms);
  };
  const double tap_ratio =
      three_rows("adbwire tap 3 (session, through the front)", "adbwire-full tap 3 (session)",
                 "adb shell input tap 540 640 (server)", front_taps, full_taps, adb_taps);
  const double push_ratio =
      three_rows("adbwire push 4 KiB (the front, daemon)", "adbwire-full push 4 KiB (daemon)",
                 "adb push 4 KiB (server)", front_pushes, full_pushes, adb_pushes);
  std::printf(
      "ratio adbwire/adb: %.2f (steady state), %.2f (first call); "
      "adbwire version / bin/true: %.2f; session tap / adb input tap: %.2f; "
      "push 4 KiB adbwire/adb: %.2f\n",
      held_ms / adb_ms, first_ms / adb_ms, version_ms / true_ms, tap_ratio, push_ratio);
  std::printf(
      "resident memory holding devices (VmRSS, MiB): adbwire daemon %.1f with 1, %.1f with "
      "%d; adb server %.1f with 1, %.1f with %d (daemon/adb %.2f at %d)\n",
      daemon_one, daemon_all, kHeldDevices, adb_one, adb_all, kHeldDevices, daemon_all / adb_all,
      kHeldDevices);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: oneshot_bench [N > 0]\n");
    return 2;
  }
  try {
    return run(n);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "oneshot_bench: %s\n", error.what());
    return 1;
  }
}
