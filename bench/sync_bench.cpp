// Pull throughput and peak memory: adbwire (SyncClient::pull over one open connection)
// against the real AOSP `adb pull` (client process plus a private adb server), both pulling
// the same file from the same virtual device in the same run.
//
// Usage: sync_bench [MiB] [RUNS]   (file size, default 64; runs per variant, default 3)
// Each pull runs in a child process so its peak RSS (ru_maxrss from wait4) is its own:
// adbwire's child connects and pulls (its pull time alone is reported too); adb's client
// process is measured the same way and its server's VmHWM is read from /proc. The virtual
// device runs in a third process, forked before this one starts any thread.
//
// Then sync v2 compression: the same size of text-like content (log lines) pulled plain and
// with each algorithm (zstd, lz4, brotli) on an open connection, beside `adb pull` of that
// file (Debian's adb 29 knows no compression), with the bytes that crossed the wire. The
// first part pulls plain (-Z), so its ratio compares like with like.
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
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "support/bench_support.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using adbwire::bench::free_port;
using adbwire::bench::kAdb;

using adbwire::bench::in_child;
using adbwire::bench::Sample;
using adbwire::bench::spawn_measured;

int run_quiet(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  return spawn_measured(argv, env).ok ? 0 : 1;
}

long vm_hwm_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

int run(std::size_t mib, int runs) {
  if (access(kAdb, X_OK) != 0) {
    std::fprintf(stderr, "sync_bench: %s not found: install it (apt-get install adb)\n", kAdb);
    return 1;
  }
  std::random_device random;
  const fs::path temp =
      fs::temp_directory_path() / ("adbwire-sync-bench-" + std::to_string(random()));
  fs::create_directories(temp / "root/sdcard");
  fs::create_directories(temp / "home");
  fs::create_directories(temp / "out");
  const std::uint64_t size = mib * 1024 * 1024;
  {
    std::mt19937_64 bits(2);
    std::ofstream file(temp / "root/sdcard/text.log", std::ios::binary);
    std::string text;
    for (std::uint64_t written = 0; written < size; written += text.size()) {
      text.clear();
      while (text.size() < 1024 * 1024) {
        text += "12-24 10:00:0" + std::to_string(bits() % 10) + "." +
                std::to_string(bits() % 1000) + "  " + std::to_string(bits() % 30000) + "  " +
                std::to_string(bits() % 30000) + " I ActivityManager: Start proc " +
                std::to_string(bits() % 100000) + ":com.example.app/u0a" +
                std::to_string(bits() % 300) + " for activity\n";
      }
      text.resize(std::min<std::uint64_t>(text.size(), size - written));
      file.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
  }
  {
    std::mt19937_64 bits(1);
    std::ofstream file(temp / "root/sdcard/big.bin", std::ios::binary);
    std::vector<std::uint64_t> block(1 << 16);
    for (std::uint64_t written = 0; written < size; written += block.size() * 8) {
      for (auto& word : block) word = bits();
      file.write(
          reinterpret_cast<const char*>(block.data()),
          static_cast<std::streamsize>(std::min<std::uint64_t>(block.size() * 8, size - written)));
    }
  }

  std::optional<adbwire::bench::ForkedVirtualDevice> vd;
  try {
    vd.emplace(temp / "root");
  } catch (const adbwire::Error& error) {
    std::fprintf(stderr, "sync_bench: %s\n", error.what());
    return 1;
  }
  const std::uint16_t port = vd->port();
  const std::string target = "tcp:127.0.0.1:" + std::to_string(port);
  const std::string serial = "127.0.0.1:" + std::to_string(port);

  // Baseline: a child that only connects, for what the pull itself adds.
  const Sample connect_only = in_child([&] {
    adbwire::Device device = adbwire::Device::connect(target);
    return device.exec("true").empty();
  });
  // The child's own pull time (after connecting) comes back through shared memory.
  struct Shared {
    double seconds;
    std::uint64_t wire_bytes;
  };
  auto* shared = static_cast<Shared*>(
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (shared == MAP_FAILED) return 1;
  double* pull_seconds = &shared->seconds;
  std::vector<double> adbwire_seconds;
  std::vector<double> adbwire_process_seconds;
  long adbwire_rss = 0;
  for (int i = 0; i < runs; ++i) {
    const Sample s = in_child([&] {
      adbwire::Device device = adbwire::Device::connect(target);
      adbwire::PullOptions plain;
      plain.compression = adbwire::SyncCompression::none;
      const auto start = Clock::now();
      adbwire::pull(device, "/sdcard/big.bin", temp / "out/adbwire.bin", plain);
      *pull_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      return true;
    });
    if (!s.ok) {
      std::fprintf(stderr, "sync_bench: adbwire pull failed\n");
      return 1;
    }
    adbwire_seconds.push_back(*pull_seconds);
    adbwire_process_seconds.push_back(s.seconds);
    adbwire_rss = std::max(adbwire_rss, s.max_rss_kib);
  }
  if (fs::file_size(temp / "out/adbwire.bin") != size) {
    std::fprintf(stderr, "sync_bench: adbwire pulled a file of the wrong size\n");
    return 1;
  }

  // Compressed pulls of the text-like file, each on an open connection.
  struct Variant {
    adbwire::SyncCompression compression;
    std::vector<double> seconds;
    std::uint64_t wire_bytes = 0;
  };
  std::vector<Variant> variants = {{adbwire::SyncCompression::none, {}, 0},
                                   {adbwire::SyncCompression::zstd, {}, 0},
                                   {adbwire::SyncCompression::lz4, {}, 0},
                                   {adbwire::SyncCompression::brotli, {}, 0}};
  for (Variant& variant : variants) {
    for (int i = 0; i < runs; ++i) {
      const Sample s = in_child([&] {
        adbwire::Device device = adbwire::Device::connect(target);
        adbwire::PullOptions options;
        options.compression = variant.compression;
        const auto start = Clock::now();
        const adbwire::TransferStats stats =
            adbwire::pull(device, "/sdcard/text.log", temp / "out/text.log", options);
        shared->seconds = std::chrono::duration<double>(Clock::now() - start).count();
        shared->wire_bytes = stats.wire_bytes;
        return stats.compression == variant.compression && stats.bytes == size;
      });
      if (!s.ok) {
        std::fprintf(stderr, "sync_bench: adbwire pull -z %s failed\n",
                     std::string(adbwire::to_string(variant.compression)).c_str());
        return 1;
      }
      variant.seconds.push_back(shared->seconds);
      variant.wire_bytes = shared->wire_bytes;
    }
  }
  munmap(shared, sizeof(Shared));

  // The real adb: a private server (our child, by PID), connected once before timing.
  std::vector<std::string> env;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string entry = *variable;
    if (entry.starts_with("HOME=") || entry.starts_with("ANDROID_") || entry.starts_with("ADB_"))
      continue;
    env.push_back(entry);
  }
  env.push_back("HOME=" + (temp / "home").string());
  env.push_back("ADB_MDNS=0");
  const std::string adb_port = std::to_string(free_port());
  const pid_t server =
      adbwire::bench::spawn_quiet({kAdb, "-P", adb_port, "nodaemon", "server"}, env);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  bool adb_ok = run_quiet({kAdb, "-P", adb_port, "connect", serial}, env) == 0 &&
                run_quiet({kAdb, "-P", adb_port, "-s", serial, "wait-for-device"}, env) == 0;
  std::vector<double> adb_seconds;
  long adb_rss = 0;
  for (int i = 0; adb_ok && i < runs; ++i) {
    const Sample s = spawn_measured({kAdb, "-P", adb_port, "-s", serial, "pull", "/sdcard/big.bin",
                                     (temp / "out/adb.bin").string()},
                                    env);
    adb_ok = s.ok;
    adb_seconds.push_back(s.seconds);
    adb_rss = std::max(adb_rss, s.max_rss_kib);
  }
  std::vector<double> adb_text_seconds;
  for (int i = 0; adb_ok && i < runs; ++i) {
    const Sample s = spawn_measured({kAdb, "-P", adb_port, "-s", serial, "pull", "/sdcard/text.log",
                                     (temp / "out/adb.log").string()},
                                    env);
    adb_ok = s.ok;
    adb_text_seconds.push_back(s.seconds);
  }
  const long server_hwm = server > 0 ? vm_hwm_kib(server) : -1;
  run_quiet({kAdb, "-P", adb_port, "kill-server"}, env);
  if (server > 0) {
    kill(server, SIGKILL);
    waitpid(server, nullptr, 0);
  }
  vd.reset();
  const bool same_size = adb_ok && fs::file_size(temp / "out/adb.bin") == size;
  std::error_code ignored;
  fs::remove_all(temp, ignored);
  if (!adb_ok || !same_size) {
    std::fprintf(stderr, "sync_bench: adb pull failed on %s\n", serial.c_str());
    return 1;
  }

  const double mb = static_cast<double>(size) / 1e6;
  const double adbwire_rate = mb / adbwire::bench::median(adbwire_seconds);
  const double adbwire_process_rate = mb / adbwire::bench::median(adbwire_process_seconds);
  const double adb_rate = mb / adbwire::bench::median(adb_seconds);
  std::printf(
      "pull of %zu MiB from the virtual device on loopback, median of %d runs (MB = 10^6 bytes)\n",
      mib, runs);
  std::printf("  adbwire pull on an open connection  %8.1f MB/s\n", adbwire_rate);
  std::printf(
      "  adbwire process: connect + pull     %8.1f MB/s   peak RSS %6ld KiB (connect alone: %ld "
      "KiB)\n",
      adbwire_process_rate, adbwire_rss, connect_only.max_rss_kib);
  std::printf(
      "  adb pull process (via adb server)   %8.1f MB/s   peak RSS %6ld KiB (+ adb server %ld "
      "KiB)\n",
      adb_rate, adb_rss, server_hwm);
  std::printf("ratio adbwire/adb throughput: %.2fx (open connection), %.2fx (process vs process)\n",
              adbwire_rate / adb_rate, adbwire_process_rate / adb_rate);
  std::printf("ratio peak RSS adbwire/adb client: %.2fx\n",
              static_cast<double>(adbwire_rss) / static_cast<double>(adb_rss));

  std::printf(
      "\npull of %zu MiB of text-like content (log lines), open connection, median of %d runs\n",
      mib, runs);
  for (const Variant& variant : variants) {
    const double rate = mb / adbwire::bench::median(variant.seconds);
    std::printf(
        "  adbwire pull -z %-6s  %8.1f MB/s   %11llu bytes on the wire (%5.1f%% of the file)\n",
        std::string(adbwire::to_string(variant.compression)).c_str(), rate,
        static_cast<unsigned long long>(variant.wire_bytes),
        100.0 * static_cast<double>(variant.wire_bytes) / static_cast<double>(size));
  }
  std::printf("  adb pull (process, no compression in adb 29)  %8.1f MB/s\n",
              mb / adbwire::bench::median(adb_text_seconds));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::atol(argv[1]) : 64;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  if (mib <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: sync_bench [MiB > 0] [RUNS > 0]\n");
    return 2;
  }
  try {
    return run(static_cast<std::size_t>(mib), runs);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sync_bench: %s\n", error.what());
    return 1;
  }
}
