// Round trip of one trivial command on a warm connection: adbwire (`exec true`,
// `shell true`, one ADB stream each over an open connection) against the real AOSP adb
// (`adb -s 127.0.0.1:PORT shell true`: a process spawn plus a hop through a running adb
// server), both against the same virtual device in the same run.
//
// Usage: exec_roundtrip_bench [N]   (N round trips per variant, default 200)
// The adb server is private: its own port and a temporary HOME, started and connected once
// before timing and killed at the end.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "support/bench_support.hpp"

namespace {

using adbwire::bench::median_ms;
using adbwire::bench::time_each;

int run(int n) {
  adbwire::VirtualDevice vd;
  vd.start();
  const std::string serial = "127.0.0.1:" + std::to_string(vd.port());

  adbwire::Device device = adbwire::Device::connect(vd.target());
  for (int i = 0; i < 10; ++i) device.exec("true");
  const auto adbwire_exec = time_each(n, [&] { device.exec("true"); });
  const auto adbwire_shell = time_each(n, [&] {
    if (device.shell("true").exit_code != 0)
      throw adbwire::Error(adbwire::errc::command_failed, "shell true failed");
  });

  std::vector<double> adb_shell;
  try {
    const adbwire::bench::PrivateAdb adb;
    adb.connect_device(vd.port());
    bool adb_ok = adb.run({"-s", serial, "shell", "true"}) == 0;
    if (adb_ok) {
      adb_shell = time_each(n, [&] {
        if (adb.run({"-s", serial, "shell", "true"}) != 0) adb_ok = false;
      });
    }
    if (!adb_ok)
      throw adbwire::Error(adbwire::errc::command_failed, "adb shell true failed on " + serial);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exec_roundtrip_bench: %s\n", error.what());
    return 1;
  }

  const double exec_ms = median_ms(adbwire_exec);
  const double shell_ms = median_ms(adbwire_shell);
  const double adb_ms = median_ms(adb_shell);
  std::printf("round trips per variant: N = %d (median per op; virtual device on loopback)\n", n);
  std::printf("  adbwire exec true           %9.3f ms\n", exec_ms);
  std::printf("  adbwire shell true (v2)     %9.3f ms\n", shell_ms);
  std::printf("  adb shell true (via server)  %9.3f ms   (adb -s %s)\n", adb_ms, serial.c_str());
  std::printf("ratio adb/adbwire: %.1fx (exec), %.1fx (shell)\n", adb_ms / exec_ms,
              adb_ms / shell_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: exec_roundtrip_bench [N > 0]\n");
    return 2;
  }
  try {
    return run(n);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exec_roundtrip_bench: %s\n", error.what());
    return 1;
  }
}
