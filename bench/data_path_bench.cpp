// Bulk data through the connection, profile by profile: adbwire against the real AOSP adb
// (client process plus a private adb server) on one virtual device per profile, in the same run.
//
// Usage: data_path_bench [MiB] [RUNS] [PROFILE…]
//   MiB: file size (default 64); RUNS: runs per profile (default 5); PROFILE: a virtual device
//   profile (default, payload-256k, payload-4k, no-shell-v2, …), "+dack" appended to offer
//   delayed_ack too (adbwire then asks for a receive window of kWindow; Debian's adb 29 does
//   not know delayed_ack). Default: every profile the issue names.
//
// Each run measures, adbwire and adb back to back so both see the same noise:
//   pull      SyncClient::pull on an open connection   vs `adb pull`
//   push      SyncClient::push on an open connection   vs `adb push`
//   exec-out  Device::exec("cat FILE") streamed         vs `adb exec-out cat FILE` > /dev/null
//   cli pull  the whole `adbwire pull` process through its daemon, and with --no-daemon (both
//             plain, the default, as adb pulls), vs the whole `adb pull` process (each with
//             its server warm)
//   cli push  the whole `adbwire push -Z` process (plain, as Debian's adb pushes; the lean front
//             through its daemon) vs the whole `adb push` process; a last summary lists its
//             ratio per profile
// Library measurements run in a forked child (its peak RSS is its own); the device runs in a
// process of its own. adbwire's daemon runs in the foreground in this bench's session, as adb's
// server does (`nodaemon server`): a daemon that started itself runs in a session of its own,
// and with the kernel's autogroup scheduling on a loaded machine every wake-up between it and the
// virtual device (a process of this session) then waited its turn; that measured the scheduler
// (0.2-0.4x for a pull that is at par with adb's in one session), not the data path. Printed per
// profile: adb's median rate and, for adbwire, the median and range over runs of adb's time /
// adbwire's time in the same run (> 1: adbwire is faster).
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "support/bench_support.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using adbwire::bench::in_child;
using adbwire::bench::kAdb;
using adbwire::bench::Sample;
using adbwire::bench::spawn_measured;
using adbwire::bench::spawn_quiet;

// adbwire's receive window on +dack profiles: the device may send this much unacknowledged.
constexpr std::uint32_t kWindow = 2 * 1024 * 1024;

// One way of moving the file: adbwire's and adb's seconds per run, and adbwire's peak RSS.
struct Measure {
  std::string name;
  std::vector<double> adbwire;
  std::vector<double> adb;
  long adbwire_rss_kib = 0;
};

// adb's time / adbwire's, run by run: "median x (lowest-highest)".
std::string ratio_text(const Measure& m) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(m.adbwire.size(), m.adb.size()); ++i)
    ratios.push_back(m.adb[i] / m.adbwire[i]);
  const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
  char text[64];
  std::snprintf(text, sizeof text, "%.2fx (%.2f-%.2f)", adbwire::bench::median(ratios), *low,
                *high);
  return text;
}

void print_measure(const Measure& m, double mb) {
  if (m.adbwire.empty() || m.adb.empty()) return;
  std::printf("  %-22s adb %7.1f MB/s  adbwire %7.1f MB/s  adbwire/adb %s", m.name.c_str(),
              mb / adbwire::bench::median(m.adb), mb / adbwire::bench::median(m.adbwire),
              ratio_text(m).c_str());
  if (m.adbwire_rss_kib > 0) std::printf("  peak RSS %ld KiB", m.adbwire_rss_kib);
  std::printf("\n");
}

struct Profile {
  std::string vdevice;
  bool delayed_ack = false;
};

Profile parse_profile(const std::string& text) {
  const std::string suffix = "+dack";
  if (text.ends_with(suffix)) return {text.substr(0, text.size() - suffix.size()), true};
  return {text, false};
}

// `adbwire-full server` started by this process (so in its session), until `kill-server`.
class ForegroundDaemon {
 public:
  ForegroundDaemon(const std::vector<std::string>& env, const fs::path& runtime) : env_(env) {
    const fs::path full = fs::path(ADBWIRE_CLI_PATH).parent_path() / "adbwire-full";
    std::error_code ignored;
    for (const auto& entry : fs::recursive_directory_iterator(runtime, ignored))
      if (entry.path().extension() == ".sock") fs::remove(entry.path(), ignored);
    pid_ = spawn_quiet({full.string(), "server"}, env);
    // Ready once its socket is there; a CLI call before that would start a daemon of its own.
    for (int i = 0; pid_ > 0 && i < 500 && !ready_; ++i) {
      for (const auto& entry : fs::recursive_directory_iterator(runtime, ignored))
        ready_ = ready_ || entry.path().extension() == ".sock";
      if (!ready_) usleep(10000);
    }
  }
  ~ForegroundDaemon() {
    if (pid_ <= 0) return;
    spawn_measured({ADBWIRE_CLI_PATH, "kill-server"}, env_);
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  ForegroundDaemon(const ForegroundDaemon&) = delete;
  ForegroundDaemon& operator=(const ForegroundDaemon&) = delete;

  bool ready() const { return ready_; }

 private:
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

class Bench {
 public:
  Bench(fs::path temp, std::uint64_t size, int runs)
      : temp_(std::move(temp)), size_(size), runs_(runs) {
    shared_ = static_cast<double*>(
        mmap(nullptr, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    if (shared_ == MAP_FAILED) throw std::runtime_error("cannot map shared memory");
  }
  ~Bench() { munmap(shared_, sizeof(double)); }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  bool run(const std::string& name) {
    const Profile profile = parse_profile(name);
    adbwire::bench::ForkedVirtualDevice vd(temp_ / "root", profile.vdevice, profile.delayed_ack);
    adbwire::bench::PrivateAdb adb;
    adb.connect_device(vd.port());
    const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
    const std::string target = vd.target();
    adbwire::ConnectOptions options;
    options.delayed_ack_window = profile.delayed_ack ? kWindow : 0;

    const std::vector<std::string> cli_env = {"HOME=" + (temp_ / "home").string(),
                                              "XDG_RUNTIME_DIR=" + (temp_ / "run").string(),
                                              "PATH=/usr/bin:/bin"};
    const std::vector<std::string> cli_pull = {ADBWIRE_CLI_PATH,
                                               "-s",
                                               target,
                                               "pull",
                                               "-q",
                                               "/sdcard/big.bin",
                                               (temp_ / "out/cli.bin").string()};
    std::vector<std::string> cli_direct = cli_pull;
    cli_direct.insert(cli_direct.begin() + 1, "--no-daemon");
    const std::vector<std::string> cli_push = {ADBWIRE_CLI_PATH,
                                               "-s",
                                               target,
                                               "push",
                                               "-q",
                                               "-Z",
                                               (temp_ / "root/sdcard/big.bin").string(),
                                               "/sdcard/up-cli.bin"};
    // The daemon holds the connection from the first call on, as adb's server does.
    const ForegroundDaemon daemon(cli_env, temp_ / "run");
    if (!daemon.ready()) return fail(name, "adbwire server");
    if (!spawn_measured(cli_pull, cli_env).ok) return fail(name, "adbwire pull (CLI)");

    const std::string adb_port = std::to_string(adb.port());
    const auto adb_argv = [&](std::vector<std::string> args) {
      args.insert(args.begin(), {kAdb, "-P", adb_port, "-s", serial});
      return args;
    };
    const std::vector<std::string>& adb_env = adb.environment();
    Measure pull{"pull", {}, {}, 0};
    Measure push{"push", {}, {}, 0};
    Measure exec_out{"exec-out cat", {}, {}, 0};
    Measure cli{"cli pull", {}, {}, 0};
    Measure cli_no_daemon{"cli pull --no-daemon", {}, {}, 0};
    Measure cli_pushes{"cli push", {}, {}, 0};
    for (int i = 0; i < runs_; ++i) {
      if (!library(pull, target, options, [&](adbwire::Device& device) {
            adbwire::PullOptions plain;
            plain.compression = adbwire::SyncCompression::none;
            adbwire::pull(device, "/sdcard/big.bin", temp_ / "out/lib.bin", plain);
            return fs::file_size(temp_ / "out/lib.bin") == size_;
          }))
        return fail(name, "adbwire pull");
      if (!adb_process(pull,
                       adb_argv({"pull", "/sdcard/big.bin", (temp_ / "out/adb.bin").string()}),
                       adb_env))
        return fail(name, "adb pull");

      if (!library(push, target, options, [&](adbwire::Device& device) {
            adbwire::PushOptions plain;
            plain.compression = adbwire::SyncCompression::none;
            adbwire::push(device, temp_ / "root/sdcard/big.bin", "/sdcard/up-adbwire.bin", plain);
            return fs::file_size(temp_ / "root/sdcard/up-adbwire.bin") == size_;
          }))
        return fail(name, "adbwire push");
      if (!adb_process(
              push,
              adb_argv({"push", (temp_ / "root/sdcard/big.bin").string(), "/sdcard/up-adb.bin"}),
              adb_env))
        return fail(name, "adb push");

      if (!library(exec_out, target, options, [&](adbwire::Device& device) {
            std::uint64_t bytes = 0;
            device.exec("cat /sdcard/big.bin",
                        [&](std::span<const std::uint8_t> chunk) { bytes += chunk.size(); });
            return bytes == size_;
          }))
        return fail(name, "adbwire exec-out");
      if (!adb_process(exec_out, adb_argv({"exec-out", "cat /sdcard/big.bin"}), adb_env))
        return fail(name, "adb exec-out");

      const Sample through_daemon = settled_spawn(cli_pull, cli_env);
      const Sample direct = settled_spawn(cli_direct, cli_env);
      const Sample adb_pull =
          settled_spawn(adb_argv({"pull", "/sdcard/big.bin", (temp_ / "out/adb.bin").string()}),
                        adb.environment());
      if (!through_daemon.ok || !direct.ok || !adb_pull.ok) return fail(name, "the CLI pulls");
      cli.adbwire.push_back(through_daemon.seconds);
      cli.adbwire_rss_kib = std::max(cli.adbwire_rss_kib, through_daemon.max_rss_kib);
      cli_no_daemon.adbwire.push_back(direct.seconds);
      cli_no_daemon.adbwire_rss_kib = std::max(cli_no_daemon.adbwire_rss_kib, direct.max_rss_kib);
      cli.adb.push_back(adb_pull.seconds);
      cli_no_daemon.adb.push_back(adb_pull.seconds);

      const Sample our_push = settled_spawn(cli_push, cli_env);
      const Sample adb_push = settled_spawn(
          adb_argv({"push", (temp_ / "root/sdcard/big.bin").string(), "/sdcard/up-adb.bin"}),
          adb.environment());
      if (!our_push.ok || !adb_push.ok || fs::file_size(temp_ / "root/sdcard/up-cli.bin") != size_)
        return fail(name, "the CLI pushes");
      cli_pushes.adbwire.push_back(our_push.seconds);
      cli_pushes.adbwire_rss_kib = std::max(cli_pushes.adbwire_rss_kib, our_push.max_rss_kib);
      cli_pushes.adb.push_back(adb_push.seconds);
    }

    const double mb = static_cast<double>(size_) / 1e6;
    std::printf("%s: %llu MiB, %d runs (MB = 10^6 bytes; adbwire library on an open connection)\n",
                name.c_str(), static_cast<unsigned long long>(size_ >> 20), runs_);
    for (const Measure* m : {&pull, &push, &exec_out, &cli, &cli_no_daemon, &cli_pushes})
      print_measure(*m, mb);
    std::fflush(stdout);
    if (!cli_pushes.adbwire.empty())
      cli_push_ratios_.push_back(name + " " + ratio_text(cli_pushes));
    return true;
  }

  // The goal "push >= adb on every profile" for the whole process, one line.
  void print_cli_push_summary() const {
    if (cli_push_ratios_.empty()) return;
    std::printf(
        "cli push (the whole process), adbwire/adb = adb's time / adbwire's, median "
        "(range):\n");
    for (const std::string& ratio : cli_push_ratios_) std::printf("  %s\n", ratio.c_str());
  }

 private:
  bool fail(const std::string& profile, const char* what) const {
    std::fprintf(stderr, "data_path_bench: %s failed on profile %s\n", what, profile.c_str());
    return false;
  }

  // Each measurement starts once what the one before wrote is on the disk: a push
  // leaves 128 MiB the kernel is still writing out, and the transfer after it (always the same
  // one, in this order) ran several times slower.
  static Sample settled_spawn(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env) {
    ::sync();
    return spawn_measured(argv, env);
  }

  // Connects in a child, then times body alone.
  bool library(Measure& m, const std::string& target, const adbwire::ConnectOptions& options,
               const std::function<bool(adbwire::Device&)>& body) {
    ::sync();
    const Sample s = in_child([&] {
      adbwire::Device device = adbwire::Device::connect(target, options);
      const auto start = Clock::now();
      const bool ok = body(device);
      *shared_ = std::chrono::duration<double>(Clock::now() - start).count();
      return ok;
    });
    if (!s.ok) return false;
    m.adbwire.push_back(*shared_);
    m.adbwire_rss_kib = std::max(m.adbwire_rss_kib, s.max_rss_kib);
    return true;
  }

  static bool adb_process(Measure& m, const std::vector<std::string>& argv,
                          const std::vector<std::string>& env) {
    const Sample s = settled_spawn(argv, env);
    if (!s.ok) return false;
    m.adb.push_back(s.seconds);
    return true;
  }

  fs::path temp_;
  std::uint64_t size_;
  int runs_;
  double* shared_ = nullptr;
  std::vector<std::string> cli_push_ratios_;  // "PROFILE ratio_text" per profile run
};

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 64;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  if (mib <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: data_path_bench [MiB > 0] [RUNS > 0] [PROFILE[+dack]…]\n");
    return 2;
  }
  std::vector<std::string> profiles;
  for (int i = 3; i < argc; ++i) profiles.emplace_back(argv[i]);
  if (profiles.empty())
    profiles = {"default",    "default+dack",    "payload-256k", "payload-256k+dack",
                "payload-4k", "payload-4k+dack", "no-shell-v2"};
  if (access(kAdb, X_OK) != 0) {
    std::fprintf(stderr, "data_path_bench: %s not found: install it (apt-get install adb)\n", kAdb);
    return 1;
  }
  std::random_device random;
  const fs::path temp =
      fs::temp_directory_path() / ("adbwire-data-path-bench-" + std::to_string(random()));
  int status = 0;
  try {
    for (const char* folder : {"root/sdcard", "home", "run", "out"})
      fs::create_directories(temp / folder);
    fs::permissions(temp / "run", fs::perms::owner_all);
    const std::uint64_t size = static_cast<std::uint64_t>(mib) << 20;
    {
      std::mt19937_64 bits(1);
      std::ofstream file(temp / "root/sdcard/big.bin", std::ios::binary);
      std::vector<std::uint64_t> block(1 << 16);
      for (std::uint64_t written = 0; written < size; written += block.size() * 8) {
        for (auto& word : block) word = bits();
        file.write(reinterpret_cast<const char*>(block.data()),
                   static_cast<std::streamsize>(
                       std::min<std::uint64_t>(block.size() * 8, size - written)));
      }
    }
    Bench bench(temp, size, runs);
    for (const std::string& profile : profiles) {
      if (!bench.run(profile)) status = 1;
    }
    bench.print_cli_push_summary();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "data_path_bench: %s\n", error.what());
    status = 1;
  }
  std::error_code ignored;
  fs::remove_all(temp, ignored);
  return status;
}
