// One app label read from a large APK on the virtual device: the whole pull the label reader
// used to make (sync pull to a file, then libzip on it) against reading only the ranges the
// label needs through `dd` (services/apk_ranges.hpp). Prints the bytes that crossed, the calls
// and the median wall time of each, and their ratios.
//
// Usage: apk_label_bench [MiB] [RUNS]   (APK size, default 100; runs per variant, default 5)
// The APK is the test suite's groceries.apk (built by aapt with the tests) padded with a stored
// asset of zeros to the size asked for.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/padded_apk.hpp"
#include "services/apk_label.hpp"
#include "services/apk_ranges.hpp"
#include "support/bench_support.hpp"

namespace {

namespace fs = std::filesystem;
using adbwire::bench::median;
using Clock = std::chrono::steady_clock;

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  if (mib == 0 || runs <= 0) {
    std::fprintf(stderr, "usage: apk_label_bench [MiB] [RUNS]\n");
    return 2;
  }
  const fs::path groceries = fs::path(ADBWIRE_TEST_APK_DIR) / "groceries.apk";
  if (!fs::exists(groceries)) {
    std::fprintf(stderr, "%s is missing: build the test_apks target first\n", groceries.c_str());
    return 1;
  }
  const fs::path work =
      fs::temp_directory_path() / ("apk-label-bench-" + std::to_string(::getpid()));
  fs::create_directories(work);
  const fs::path apk = work / "big.apk";
  adbwire::test::pad_apk(groceries, apk, mib * 1024 * 1024);
  const std::uint64_t size = fs::file_size(apk);

  adbwire::VirtualDevice vdevice;
  vdevice.start();
  fs::create_directories(vdevice.root() / "data/local/tmp");
  fs::copy_file(apk, vdevice.root() / "data/local/tmp/big.apk");
  const std::string remote = "/data/local/tmp/big.apk";
  adbwire::Device device = adbwire::Device::connect(vdevice.target());

  std::vector<double> pulled_ms;
  std::vector<double> ranged_ms;
  std::uint64_t fetched = 0;
  std::size_t calls = 0;
  bool ok = true;
  for (int run = 0; run < runs; ++run) {
    {
      const auto start = Clock::now();
      adbwire::SyncClient sync(device);
      adbwire::PullOptions options;
      options.keep_attributes = false;
      sync.pull(remote, work / "pulled.apk", options);
      adbwire::detail::Failure failure;
      ok = ok && adbwire::detail::apk_label(work / "pulled.apk", failure) == "Demo Groceries";
      pulled_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      fs::remove(work / "pulled.apk");
    }
    {
      const auto start = Clock::now();
      adbwire::detail::DeviceFileRanges ranges(
          device, remote, size, adbwire::detail::kMaxApkRangeBytes, adbwire::kDefaultDeadline);
      adbwire::detail::Failure failure;
      const std::string label = adbwire::detail::apk_label(
          size,
          [&ranges](std::uint64_t offset, std::span<std::uint8_t> into,
                    adbwire::detail::Failure& f) { return ranges.read(offset, into, f); },
          failure);
      ok = ok && label == "Demo Groceries";
      ranged_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      fetched = ranges.fetched();
      calls = ranges.calls();
    }
  }
  fs::remove_all(work);
  if (!ok) {
    std::fprintf(stderr, "a label read failed\n");
    return 1;
  }
  const double pulled = median(pulled_ms);
  const double ranged = median(ranged_ms);
  std::printf("label of a %ju-byte APK, median of %d runs on the virtual device\n",
              static_cast<std::uintmax_t>(size), runs);
  std::printf("  whole pull: %12ju bytes  1 pull          %9.1f ms\n",
              static_cast<std::uintmax_t>(size), pulled);
  std::printf("  by ranges:  %12ju bytes  %zu dd calls      %9.1f ms\n",
              static_cast<std::uintmax_t>(fetched), calls, ranged);
  std::printf("  ratio: %.0fx fewer bytes, %.1fx less time\n",
              static_cast<double>(size) / static_cast<double>(fetched), pulled / ranged);
  return 0;
}
