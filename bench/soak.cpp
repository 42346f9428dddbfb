// Soak: snapshot / tap / pull / shell loops against virtual devices for MINUTES, sampling this
// process's resident memory and open file descriptors every SAMPLE seconds into a CSV, then
// saying whether both stayed flat. Run by scripts/soak; not part of CI (it takes an hour).
// The virtual devices run as separate `adbwire vdevice` processes, so the samples are the
// library's alone (a device's own event log grows with every tap, by design).
//
// Usage: soak MINUTES SAMPLE_SECONDS CSV_PATH
// Flat means: the mean RSS of the last quarter of samples is within 10% of the second quarter's
// (the first quarter is warm-up), and the fewest descriptors open in the last quarter is no
// more than in the second (a leak raises that floor; a sample can catch a pull's file open).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/page.hpp"
#include "adbwire/sync.hpp"
#include "support/bench_support.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kDevices = 4;

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

std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// What each open descriptor points at ("socket:[123]", "/dev/urandom", …), to name any that
// stays open after the loops.
std::map<std::string, std::string> descriptor_targets() {
  std::map<std::string, std::string> targets;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd", error)) {
    targets[entry.path().filename().string()] = fs::read_symlink(entry.path(), error).string();
  }
  return targets;
}

struct Sample {
  double minutes;
  std::size_t rss_kib;
  std::size_t fds;
  std::uint64_t loops;
};

double mean_rss(const std::vector<Sample>& samples, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += static_cast<double>(samples[i].rss_kib);
  return sum / static_cast<double>(to - from);
}

std::size_t fewest_fds(const std::vector<Sample>& samples, std::size_t from, std::size_t to) {
  std::size_t fewest = samples[from].fds;
  for (std::size_t i = from; i < to; ++i) fewest = std::min(fewest, samples[i].fds);
  return fewest;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: soak MINUTES SAMPLE_SECONDS CSV_PATH\n");
    return 2;
  }
  const double minutes = std::atof(argv[1]);
  const int sample_seconds = std::atoi(argv[2]);
  if (minutes <= 0 || sample_seconds <= 0) {
    std::fprintf(stderr, "soak: MINUTES and SAMPLE_SECONDS must be positive\n");
    return 2;
  }
  const fs::path work = fs::temp_directory_path() / ("adbwire-soak-" + std::to_string(::getpid()));
  fs::create_directories(work);

  std::vector<pid_t> device_pids;
  std::vector<std::string> targets;
  for (int i = 0; i < kDevices; ++i) {
    const fs::path root = work / ("device-" + std::to_string(i));
    fs::create_directories(root / "sdcard");
    std::ofstream(root / "sdcard" / "data.bin", std::ios::binary) << std::string(4 << 20, 'x');
    const std::uint16_t port = adbwire::bench::free_port();
    device_pids.push_back(adbwire::bench::spawn_quiet(
        {ADBWIRE_CLI_PATH, "vdevice", "--port", std::to_string(port), "--root", root.string(),
         "--screens", std::string(ADBWIRE_SOURCE_DIR) + "/src/vdevice/screens/demo"},
        {}));
    targets.push_back("tcp:127.0.0.1:" + std::to_string(port));
  }
  auto stop_devices = [&] {
    for (pid_t pid : device_pids) {
      if (pid > 0) kill(pid, SIGTERM);
    }
    for (pid_t pid : device_pids) {
      if (pid > 0) waitpid(pid, nullptr, 0);
    }
  };
  // Each device listens within moments of starting; give them a second at most.
  for (const std::string& target : targets) {
    for (int attempt = 0;; ++attempt) {
      std::error_code error;
      adbwire::Device::connect(target, {}, error);
      if (!error) break;
      if (attempt == 100) {
        std::fprintf(stderr, "soak: the virtual device at %s never answered\n", target.c_str());
        stop_devices();
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  // Descriptors before any Page exists (the CSV already open), to compare with after every
  // Page is closed: a pull's open file or a stream in flight can raise a sample, but nothing
  // may stay open at the end.
  std::ofstream csv(argv[3]);
  csv << "minutes,rss_kib,fds,loops\n";
  const std::size_t fds_before = open_descriptors();
  const auto targets_before = descriptor_targets();
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> loops{0};
  std::atomic<std::uint64_t> failures{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < kDevices; ++i) {
    workers.emplace_back([&, i] {
      const auto n = static_cast<std::size_t>(i);
      adbwire::Page page = adbwire::Page::connect(targets[n]);
      const fs::path local = work / (std::to_string(i) + ".bin");
      while (!stop) {
        std::error_code error;
        const auto& snapshot = page.snapshot(adbwire::kDefaultDeadline, error);
        if (!error && !snapshot.refs().empty())
          page.tap(snapshot.refs().front().ref, adbwire::kDefaultDeadline, error);
        if (!error) page.back(adbwire::kDefaultDeadline, error);
        if (!error) adbwire::pull(page.device(), "/sdcard/data.bin", local, {}, error);
        if (!error) page.device().shell("echo soak", adbwire::kDefaultDeadline, error);
        if (error) {
          ++failures;
          std::fprintf(stderr, "soak: device %d: %s\n", i, error.message().c_str());
        }
        ++loops;
      }
    });
  }

  std::vector<Sample> samples;
  const auto started = Clock::now();
  const auto end = started + std::chrono::duration<double, std::ratio<60>>(minutes);
  while (Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::seconds(sample_seconds));
    const double at = std::chrono::duration<double, std::ratio<60>>(Clock::now() - started).count();
    samples.push_back({at, resident_kib(), open_descriptors(), loops.load()});
    const Sample& s = samples.back();
    csv << s.minutes << ',' << s.rss_kib << ',' << s.fds << ',' << s.loops << '\n' << std::flush;
  }
  stop = true;
  for (auto& worker : workers) worker.join();
  const std::size_t fds_after = open_descriptors();
  for (const auto& [fd, target] : descriptor_targets()) {
    if (!targets_before.contains(fd))
      std::printf("soak: descriptor %s still open after the loops: %s\n", fd.c_str(),
                  target.c_str());
  }
  stop_devices();
  fs::remove_all(work);

  if (samples.size() < 8) {
    std::fprintf(stderr, "soak: too few samples (%zu) to judge; run longer\n", samples.size());
    return 2;
  }
  const std::size_t q = samples.size() / 4;
  const double rss_early = mean_rss(samples, q, 2 * q);
  const double rss_late = mean_rss(samples, samples.size() - q, samples.size());
  const std::size_t fds_early = fewest_fds(samples, q, 2 * q);
  const std::size_t fds_late = fewest_fds(samples, samples.size() - q, samples.size());
  // RSS must stay within 10% of the second quarter's; descriptors must all be back once the
  // Pages are closed (the sampled floor is shown too, but a sample can catch a transfer's file).
  const bool flat = rss_late <= rss_early * 1.10 && fds_after <= fds_before;
  std::printf(
      "soak: %.1f min, %llu loops (snapshot+tap+back+4 MiB pull+shell) on %d devices, %llu failed\n"
      "soak: RSS %.0f KiB (2nd quarter) -> %.0f KiB (last quarter); fewest fds sampled %zu -> %zu; "
      "fds before the loops %zu, after every Page closed %zu: %s\n",
      minutes, static_cast<unsigned long long>(loops.load()), kDevices,
      static_cast<unsigned long long>(failures.load()), rss_early, rss_late, fds_early, fds_late,
      fds_before, fds_after, flat ? "flat" : "GROWING");
  return flat && failures == 0 ? 0 : 1;
}
