// adbwire beside the tools users would pick instead, on one virtual device in one run:
// `shell true` latency and a 64 MiB pull for adbwire (direct TCP, and through the adb
// server), the real `adb`, and the Node.js peers @devicefarmer/adbkit and @yume-chan/adb
// (ya-webadb, Tango), which reach a device only through the adb server.
//
// Every tool pulls plain: adbwire's default would compress when the device offers it, which
// on loopback costs more than it saves (sync_bench measures that part).
//
// Usage: peers_bench [N]   (N `shell true` commands per tool, default 200)
// The peers' figures include their own Node.js overhead; the adb server hop itself is cheap (a
// raw socket making the same two requests for shell:true takes about 0.3 ms here).
// Needs node and bench/peers/node_modules (scripts/setup runs npm ci there). The adb server is
// private (free port, temporary HOME), our child, stopped by PID at the end.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/sync.hpp"
#include "support/bench_support.hpp"

namespace {

namespace fs = std::filesystem;
using adbwire::bench::median_ms;
using adbwire::bench::time_each;

constexpr std::size_t kPullBytes = 64u << 20;
constexpr int kPulls = 3;  // the median of 3 is reported: one pull is at the mercy of the machine

struct Row {
  std::string name;
  double shell_ms = 0;
  double pull_mb_s = 0;
};

[[noreturn]] void fail(const std::string& message) {
  throw adbwire::Error(adbwire::errc::command_failed, message);
}

double megabytes_per_second(double ms) {
  return static_cast<double>(kPullBytes) / 1e6 / (ms / 1000.0);
}

// The Node.js peers' rows, from bench/peers/peers.mjs run against the same server and device.
std::vector<Row> run_peers(std::uint16_t server_port, const std::string& serial, int n,
                           const fs::path& out) {
  const fs::path peers = fs::path(ADBWIRE_SOURCE_DIR) / "bench/peers";
  if (!fs::exists(peers / "node_modules/@devicefarmer/adbkit") ||
      !fs::exists(peers / "node_modules/@yume-chan/adb")) {
    fail("the Node.js peers are not installed: run scripts/setup (it runs npm ci in bench/peers)");
  }
  const std::string command = "cd '" + peers.string() + "' && node peers.mjs " +
                              std::to_string(server_port) + " " + serial + " " + std::to_string(n) +
                              " /sdcard/big.bin " + std::to_string(kPullBytes) + " '" +
                              out.string() + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) fail("cannot run node");
  std::vector<Row> rows;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    char name[64];
    Row row;
    if (std::sscanf(line, "%63s shell_ms=%lf pull_mb_s=%lf", name, &row.shell_ms, &row.pull_mb_s) ==
        3) {
      row.name = name;
      rows.push_back(row);
    }
  }
  if (::pclose(pipe) != 0 || rows.size() != 2)
    fail("bench/peers/peers.mjs failed (its error is above)");
  return rows;
}

int run(int n) {
  int status = 1;
  const fs::path temp =
      fs::temp_directory_path() / ("adbwire-peers-bench-" + std::to_string(std::random_device()()));
  try {
    fs::create_directories(temp / "root/sdcard");
    fs::create_directories(temp / "out");
    {
      std::mt19937_64 random(7);
      std::vector<std::uint64_t> block(1 << 16);
      std::ofstream file(temp / "root/sdcard/big.bin", std::ios::binary);
      for (std::size_t written = 0; written < kPullBytes; written += block.size() * 8) {
        for (std::uint64_t& word : block) word = random();
        file.write(reinterpret_cast<const char*>(block.data()),
                   static_cast<std::streamsize>(block.size() * 8));
      }
    }
    const adbwire::bench::ForkedVirtualDevice vd(temp / "root");
    const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
    const adbwire::bench::PrivateAdb adb;
    adb.connect_device(vd.port());

    std::vector<Row> rows;
    auto adbwire_row = [&](const std::string& name, adbwire::Device& device) {
      auto shell_true = [&] {
        if (device.shell("true").exit_code != 0) fail(name + ": shell true failed");
      };
      for (int i = 0; i < 10; ++i) shell_true();
      Row row{name, median_ms(time_each(n, shell_true)), 0};
      const fs::path local = temp / "out" / "adbwire.bin";
      const auto pull_ms = time_each(kPulls, [&] {
        adbwire::PullOptions plain;  // as adb 29 and the peers pull: no compression
        plain.compression = adbwire::SyncCompression::none;
        adbwire::pull(device, "/sdcard/big.bin", local, plain);
        if (fs::file_size(local) != kPullBytes) fail(name + ": pulled a file of the wrong size");
        fs::remove(local);
      });
      row.pull_mb_s = megabytes_per_second(median_ms(pull_ms));
      rows.push_back(row);
    };
    adbwire::Device direct = adbwire::Device::connect(vd.target());
    adbwire_row("adbwire (direct tcp)", direct);
    adbwire::Device through =
        adbwire::Device::connect("server:127.0.0.1:" + std::to_string(adb.port()) + "/" + serial);
    adbwire_row("adbwire (adb server)", through);

    {
      Row row{"adb (CLI)", 0, 0};
      row.shell_ms = median_ms(time_each(n, [&] {
        if (adb.run({"-s", serial, "shell", "true"}) != 0) fail("adb shell true failed");
      }));
      const fs::path local = temp / "out" / "adb.bin";
      const auto pull_ms = time_each(kPulls, [&] {
        if (adb.run({"-s", serial, "pull", "/sdcard/big.bin", local.string()}) != 0)
          fail("adb pull failed");
        if (fs::file_size(local) != kPullBytes) fail("adb pull: a file of the wrong size");
        fs::remove(local);
      });
      row.pull_mb_s = megabytes_per_second(median_ms(pull_ms));
      rows.push_back(row);
    }
    for (const Row& row : run_peers(adb.port(), serial, n, temp / "out")) rows.push_back(row);

    const Row& best = rows.front();
    std::printf(
        "shell true (median of %d) and a 64 MiB pull to disk (median of %d), one virtual device on "
        "loopback\n",
        n, kPulls);
    std::printf("  %-22s %12s %14s   %s\n", "tool", "shell true", "pull",
                "its shell time, pull rate / adbwire direct's");
    for (const Row& row : rows) {
      std::printf("  %-22s %9.3f ms %9.1f MB/s   %6.1fx  %5.2fx\n", row.name.c_str(), row.shell_ms,
                  row.pull_mb_s, row.shell_ms / best.shell_ms, row.pull_mb_s / best.pull_mb_s);
    }
    status = 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "peers_bench: %s\n", error.what());
  }
  std::error_code ignored;
  fs::remove_all(temp, ignored);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: peers_bench [N > 0]\n");
    return 2;
  }
  return run(n);
}
