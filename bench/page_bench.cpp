// End-to-end agent latency against one virtual device (demo screen graph):
//   1. snapshot: Page::snapshot() on an open connection (dump + stream back in one exec
//      stream, then parse/prune/refs) vs the spawn-per-command way agents use today,
//      `adb exec-out 'uiautomator dump F && cat F'` through a private adb server (XML only,
//      no parsing), and the same adb call plus our parse for a like-for-like total;
//   2. CLI calls: `adbwire press 4` / `adbwire snapshot` as processes talking to an open
//      session, vs `adb shell input keyevent 4` as a process.
// Usage: page_bench [N]   (N runs per variant, default 100). Prints medians.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ip/tcp.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kAdb = "/usr/bin/adb";

double median_ms(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

std::vector<double> time_each(int n, const std::function<void()>& op) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    op();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return samples;
}

std::uint16_t free_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io,
                                   asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

// Runs program with args and extra environment entries; stdout goes to out_file ("" =
// /dev/null). Returns the exit status, -1 when it could not run.
int spawn(const std::string& program, const std::vector<std::string>& args,
          const std::vector<std::string>& env, const std::string& out_file = {}) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> argv_ptrs;
  for (const std::string& a : argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  argv_ptrs.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** v = environ; *v != nullptr; ++v) {
    const std::string entry = *v;
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const std::string& e) {
      return entry.compare(0, e.find('=') + 1, e, 0, e.find('=') + 1) == 0;
    });
    if (!replaced) environment.push_back(entry);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> env_ptrs;
  for (const std::string& e : environment) env_ptrs.push_back(const_cast<char*>(e.c_str()));
  env_ptrs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO,
                                   out_file.empty() ? "/dev/null" : out_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, program.c_str(), &actions, nullptr, argv_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return {};
  std::string data;
  char buffer[65536];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) data.append(buffer, n);
  std::fclose(file);
  return data;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw adbwire::Error(adbwire::errc::command_failed, what);
}

int run(int n) {
  if (access(kAdb, X_OK) != 0) {
    std::fprintf(stderr, "page_bench: %s not found: install it (apt-get install adb)\n", kAdb);
    return 1;
  }
  adbwire::VirtualDeviceOptions options;
  options.screens = fs::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  adbwire::VirtualDevice vd(options);
  vd.start();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());

  std::random_device random;
  const fs::path work =
      fs::temp_directory_path() / ("adbwire-page-bench-" + std::to_string(random()));
  fs::create_directories(work);
  const std::vector<std::string> adb_env = {
      "HOME=" + work.string(), "ANDROID_ADB_SERVER_PORT=" + std::to_string(free_port())};
  const std::vector<std::string> cli_env = {"ADBWIRE_SESSION=" + (work / "session.sock").string(),
                                            "XDG_RUNTIME_DIR=" + (work / "run").string()};
  const std::string xml_out = (work / "dump.xml").string();

  // 1. snapshot
  adbwire::Page page = adbwire::Page::connect(vd.target());
  for (int i = 0; i < 5; ++i) page.snapshot();
  const auto page_snapshot =
      time_each(n, [&] { require(!page.snapshot().refs().empty(), "no refs"); });

  require(spawn(kAdb, {"start-server"}, adb_env) == 0 &&
              spawn(kAdb, {"connect", serial}, adb_env) == 0 &&
              spawn(kAdb, {"-s", serial, "wait-for-device"}, adb_env) == 0,
          "the adb server could not connect to the virtual device");
  const std::string dump =
      "uiautomator dump /data/local/tmp/bench.xml >/dev/null && cat /data/local/tmp/bench.xml";
  const auto adb_dump = time_each(n, [&] {
    require(spawn(kAdb, {"-s", serial, "exec-out", dump}, adb_env, xml_out) == 0,
            "adb exec-out failed");
  });
  const auto adb_dump_parsed = time_each(n, [&] {
    require(spawn(kAdb, {"-s", serial, "exec-out", dump}, adb_env, xml_out) == 0,
            "adb exec-out failed");
    require(!adbwire::ui::parse_dump(slurp(xml_out)).refs().empty(), "adb's dump has no refs");
  });

  // 2. CLI calls with the session
  const std::string cli = ADBWIRE_CLI_PATH;
  require(spawn(cli, {"open", vd.target()}, cli_env) == 0, "adbwire open failed");
  const auto cli_press = time_each(n, [&] {
    require(spawn(cli, {"press", "4"}, cli_env) == 0, "adbwire press failed");
  });
  const auto cli_snapshot = time_each(n, [&] {
    require(spawn(cli, {"snapshot"}, cli_env, (work / "path.txt").string()) == 0,
            "adbwire snapshot failed");
  });
  spawn(cli, {"kill-server"}, cli_env);
  const auto adb_press = time_each(n, [&] {
    require(spawn(kAdb, {"-s", serial, "shell", "input", "keyevent", "4"}, adb_env) == 0,
            "adb shell input failed");
  });
  spawn(kAdb, {"kill-server"}, adb_env);
  std::error_code ignored;
  fs::remove_all(work, ignored);

  std::printf(
      "page_bench: N = %d per variant, median ms, virtual device on loopback (demo screen graph)\n",
      n);
  std::printf("snapshot\n");
  std::printf("  adbwire Page::snapshot() (dump+stream+parse+refs)  %8.3f\n",
              median_ms(page_snapshot));
  std::printf("  adb exec-out 'uiautomator dump F && cat F' (XML)    %8.3f\n", median_ms(adb_dump));
  std::printf("  the same + parse to refs                            %8.3f\n",
              median_ms(adb_dump_parsed));
  std::printf("  ratio adb+parse / adbwire: %.1fx\n",
              median_ms(adb_dump_parsed) / median_ms(page_snapshot));
  std::printf("CLI call (a process per call)\n");
  std::printf("  adbwire press 4 (session)                           %8.3f\n",
              median_ms(cli_press));
  std::printf("  adbwire snapshot (session, writes .adbwire/*.yml)   %8.3f\n",
              median_ms(cli_snapshot));
  std::printf("  adb shell input keyevent 4 (server)                 %8.3f\n",
              median_ms(adb_press));
  std::printf("  ratio adb / adbwire press: %.1fx\n", median_ms(adb_press) / median_ms(cli_press));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  if (n <= 0) {
    std::fprintf(stderr, "usage: page_bench [N > 0]\n");
    return 2;
  }
  try {
    return run(n);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "page_bench: %s\n", error.what());
    return 1;
  }
}
