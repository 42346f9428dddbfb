// Per-command latency of `shell true` on one virtual device, three ways in one run:
// adbwire through a running adb server (server: target, one server socket per command),
// adbwire direct over TCP (one ADB stream on the open connection), and the real
// `adb -s SERIAL shell true` (a process spawn plus the same server hop).
//
// Usage: server_latency_bench [N]   (N commands per variant, default 200)
// The adb server is private (free port, temporary HOME), our child, stopped by PID at the end.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "support/bench_support.hpp"

namespace {

using adbwire::bench::median_ms;
using adbwire::bench::time_each;

int run(int n) {
  int status = 1;
  try {
    adbwire::VirtualDevice vd;
    vd.start();
    const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
    const adbwire::bench::PrivateAdb adb;
    adb.connect_device(vd.port());
    const std::string port_text = std::to_string(adb.port());

    auto check = [](adbwire::Device& device) {
      if (device.shell("true").exit_code != 0)
        throw adbwire::Error(adbwire::errc::command_failed, "shell true failed");
    };
    adbwire::Device through =
        adbwire::Device::connect("server:127.0.0.1:" + port_text + "/" + serial);
    adbwire::Device direct = adbwire::Device::connect(vd.target());
    for (int i = 0; i < 10; ++i) {
      check(through);
      check(direct);
    }
    const auto server_ms = median_ms(time_each(n, [&] { check(through); }));
    const auto direct_ms = median_ms(time_each(n, [&] { check(direct); }));
    bool adb_ok = true;
    const auto adb_ms = median_ms(time_each(n, [&] {
      if (adb.run({"-s", serial, "shell", "true"}) != 0) adb_ok = false;
    }));
    if (!adb_ok) throw adbwire::Error(adbwire::errc::command_failed, "adb shell true failed");

    std::printf("shell true, N = %d per variant (median per command; virtual device on loopback)\n",
                n);
    std::printf("  adbwire direct tcp            %9.3f ms\n", direct_ms);
    std::printf("  adbwire through adb server    %9.3f ms\n", server_ms);
    std::printf("  adb -s %s shell true  %9.3f ms\n", serial.c_str(), adb_ms);
    std::printf("ratios: server/direct %.2fx, adb/server %.1fx, adb/direct %.1fx\n",
                server_ms / direct_ms, adb_ms / server_ms, adb_ms / direct_ms);
    status = 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "server_latency_bench: %s\n", error.what());
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200;
  if (n <= 0) {
    std::fprintf(stderr, "usage: server_latency_bench [N > 0]\n");
    return 2;
  }
  return run(n);
}
