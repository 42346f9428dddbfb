// Snapshot latency through the on-device dumper's protocol vs the dump-to-file path
// (`uiautomator dump F && cat F` in one exec stream), both as Page::snapshot() on one open
// connection to the same virtual device (demo screen graph). The virtual device answers both
// at once, so this measures the host-side cost of each path, not a phone's dump time.
// Then what the default ref check costs an action: Page::tap(ref) with RefCheck::always (the
// screen re-read before the tap) against RefCheck::never, through each path, on a screen that
// does not change when tapped. On a phone the check costs one dump of the path in use
// (uiautomator dump takes 1-3 s there, the dumper tens of milliseconds); here the virtual device
// answers at once, so the figure is the check's own cost on the host and the wire. Last, an
// unchecked tap through `input` against the same tap injected by the dumper (host and wire).
// Usage: helper_bench [N]   (N snapshots per path, default 300). Prints medians and p90.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  return samples[static_cast<std::size_t>(p * static_cast<double>(samples.size() - 1))];
}

std::vector<double> time_snapshots(adbwire::Page& page, int n) {
  // Warm: the helper's push and start, the file method's first probe. A dumper that just ended
  // may hold UiAutomation for a moment longer (busy), as on a phone.
  std::error_code error;
  for (int i = 0; i < 200; ++i) {
    page.snapshot(adbwire::kDefaultDeadline, error);
    if (error != adbwire::errc::busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (error) throw adbwire::Error(error, page.last_error());
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    page.snapshot();
    samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 300;
  adbwire::VirtualDeviceOptions vd_options;
  vd_options.screens = std::filesystem::path(ADBWIRE_SOURCE_DIR) / "src/vdevice/screens/demo";
  adbwire::VirtualDevice vd(vd_options);
  vd.start();

  adbwire::PageOptions file_options;
  file_options.dump_method = adbwire::PageOptions::DumpMethod::file;
  adbwire::Page file_page = adbwire::Page::connect(vd.target(), file_options);
  adbwire::PageOptions helper_options;
  helper_options.helper = adbwire::PageOptions::Helper::on;

  // Interleaved rounds so drift on a shared machine hits both paths alike. The dumper holds
  // the device's only UiAutomation connection while it runs, so each round's helper Page is
  // closed (its dumper exits) before the file path runs again.
  std::vector<double> file_ms;
  std::vector<double> helper_ms;
  bool helper_in_use = true;
  for (int round = 0; round < 5; ++round) {
    for (double s : time_snapshots(file_page, n / 5 + 1)) file_ms.push_back(s);
    adbwire::Page helper_page = adbwire::Page::connect(vd.target(), helper_options);
    for (double s : time_snapshots(helper_page, n / 5 + 1)) helper_ms.push_back(s);
    helper_in_use = helper_in_use && helper_page.helper_status().in_use;
  }
  std::printf("snapshot() over one connection, %zu runs each, virtual device:\n", file_ms.size());
  std::printf("  dump-to-file path (uiautomator dump F && cat F): median %.3f ms, p90 %.3f ms\n",
              percentile(file_ms, 0.5), percentile(file_ms, 0.9));
  std::printf("  on-device dumper protocol (one open exec stream): median %.3f ms, p90 %.3f ms\n",
              percentile(helper_ms, 0.5), percentile(helper_ms, 0.9));
  std::printf("  helper minus file path: %+.3f ms (median)\n",
              percentile(helper_ms, 0.5) - percentile(file_ms, 0.5));

  // Taps on a still screen (the sample screen: tapping changes nothing), ref 3 ("Add").
  adbwire::VirtualDevice still;
  still.start();
  const auto tap_times = [&](adbwire::PageOptions options, adbwire::RefCheck check) {
    options.ref_check = check;
    adbwire::Page page = adbwire::Page::connect(still.target(), options);
    time_snapshots(page, 1);
    std::vector<double> samples;
    for (int i = 0; i < n / 5 + 1; ++i) {
      const auto start = Clock::now();
      page.tap(3);
      samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    helper_in_use = helper_in_use && (options.helper == adbwire::PageOptions::Helper::off ||
                                      page.helper_status().in_use);
    return samples;
  };
  std::vector<double> file_checked, file_unchecked, helper_checked, helper_unchecked;
  for (int round = 0; round < 5; ++round) {
    for (double s : tap_times(file_options, adbwire::RefCheck::always)) file_checked.push_back(s);
    for (double s : tap_times(file_options, adbwire::RefCheck::never)) file_unchecked.push_back(s);
    for (double s : tap_times(helper_options, adbwire::RefCheck::always))
      helper_checked.push_back(s);
    for (double s : tap_times(helper_options, adbwire::RefCheck::never))
      helper_unchecked.push_back(s);
  }
  const auto row = [](const char* label, const std::vector<double>& checked,
                      const std::vector<double>& unchecked) {
    const double with = percentile(checked, 0.5);
    const double without = percentile(unchecked, 0.5);
    std::printf("  %-22s checked %.3f ms, unchecked %.3f ms: the check costs %+.3f ms (%.2fx)\n",
                label, with, without, with - without, with / without);
  };
  std::printf("tap(ref), %zu runs each, RefCheck::always vs never, virtual device:\n",
              file_checked.size());
  row("dump-to-file path", file_checked, file_unchecked);
  row("on-device dumper", helper_checked, helper_unchecked);
  // Unchecked taps: `input tap` in an exec stream of its own against a MotionEvent pair on the
  // dumper's open stream. The virtual device runs `input` at once; a phone starts a Java
  // process for it (about 0.8 s on a 2018 phone, scrcpy#112), which the dumper never does.
  const double by_input = percentile(file_unchecked, 0.5);
  const double by_dumper = percentile(helper_unchecked, 0.5);
  std::printf("tap(ref) unchecked: `input tap` %.3f ms, injected by the dumper %.3f ms (%.2fx)\n",
              by_input, by_dumper, by_input / by_dumper);
  return helper_in_use ? 0 : 1;
}
