// Load: many streams on one connection and many devices driven from one process, with every
// result checked and memory bounded. Not a speed test (that is bench/): the bounds here catch
// a buffer that grows with the load, not a slow run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/page.hpp"
#include "adbwire/sync.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "integration/sanitizer.hpp"

namespace adbwire {
namespace {

namespace fs = std::filesystem;

// Resident memory of this process in KiB (VmRSS).
std::size_t resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      std::size_t kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(4096, '\n');
  }
  return 0;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(Load, TwoHundredConcurrentStreamsOnOneConnection) {
  VirtualDevice vd;
  vd.start();
  Device device = Device::connect(vd.target());
  constexpr int kStreams = 200;
  std::vector<std::string> outputs(kStreams);
  std::vector<std::error_code> errors(kStreams);
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kStreams; ++i) {
      threads.emplace_back([&, i] {
        // 20 KB per stream, so each stream needs several WRTE/OKAY rounds while the others run.
        outputs[static_cast<std::size_t>(i)] =
            device.exec("head -c " + std::to_string(20'000 + i) + " /dev/zero", kDefaultDeadline,
                        errors[static_cast<std::size_t>(i)]);
      });
    }
  }
  for (int i = 0; i < kStreams; ++i) {
    const auto n = static_cast<std::size_t>(i);
    EXPECT_FALSE(errors[n]) << "stream " << i << ": " << errors[n].message();
    EXPECT_EQ(outputs[n], std::string(20'000 + n, '\0')) << "stream " << i;
  }
}

TEST(Load, SixteenDevicesDrivenInParallelFromOneProcess) {
  constexpr int kDevices = 16;
  constexpr int kRounds = 5;
  std::vector<std::unique_ptr<VirtualDevice>> devices;
  for (int i = 0; i < kDevices; ++i) {
    VirtualDeviceOptions options;
    options.serial = "load-" + std::to_string(i);
    devices.push_back(std::make_unique<VirtualDevice>(options));
    devices.back()->start();
    // 1 MiB of per-device bytes to pull.
    std::string bytes(1 << 20, '\0');
    std::mt19937 random(static_cast<unsigned>(i));
    for (char& c : bytes) c = static_cast<char>(random());
    std::ofstream(devices.back()->root() / "sdcard" / "data.bin", std::ios::binary) << bytes;
  }
  const fs::path local_dir =
      fs::temp_directory_path() / ("adbwire-load-" + std::to_string(::getpid()));
  fs::create_directories(local_dir);

  const std::size_t rss_before = resident_kib();
  std::vector<std::string> failures(kDevices);
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kDevices; ++i) {
      threads.emplace_back([&, i] {
        const auto n = static_cast<std::size_t>(i);
        try {
          Page page = Page::connect(devices[n]->target());
          const std::string expected = read_file(devices[n]->root() / "sdcard" / "data.bin");
          for (int round = 0; round < kRounds; ++round) {
            if (page.device().shell("getprop ro.serialno").out !=
                "load-" + std::to_string(i) + "\n")
              failures[n] += "wrong serial; ";
            const fs::path local = local_dir / (std::to_string(i) + ".bin");
            pull(page.device(), "/sdcard/data.bin", local);
            if (read_file(local) != expected) failures[n] += "pulled bytes differ; ";
            if (page.snapshot().refs().empty()) failures[n] += "snapshot without refs; ";
            page.tap(1);
          }
        } catch (const std::exception& e) {
          failures[n] += e.what();
        }
      });
    }
  }
  const std::size_t rss_after = resident_kib();
  fs::remove_all(local_dir);

  for (int i = 0; i < kDevices; ++i) {
    EXPECT_EQ(failures[static_cast<std::size_t>(i)], "") << "device " << i;
    // Each device saw its own taps, and only those.
    const auto events = devices[static_cast<std::size_t>(i)]->events();
    EXPECT_EQ(std::count_if(events.begin(), events.end(),
                            [](const std::string& e) { return e.starts_with("input tap "); }),
              kRounds)
        << "device " << i;
  }
  // 16 pulls of 1 MiB run at once; streaming keeps each to a bounded buffer, so growth stays
  // far below what buffering the files would take (16 x 5 x 1 MiB), whatever the allocator.
  // Under AddressSanitizer RSS says nothing about us: its quarantine keeps up to 256 MiB of
  // freed memory resident by design; ThreadSanitizer's shadow grows with every page touched. The
  // bound holds for the default build only.
  if (!test::kAddressSanitizer && !test::kThreadSanitizer) {
    EXPECT_LT(rss_after > rss_before ? rss_after - rss_before : 0, 64U * 1024)
        << "RSS grew from " << rss_before << " KiB to " << rss_after << " KiB";
  }
}

}  // namespace
}  // namespace adbwire
