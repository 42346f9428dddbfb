// Screenshot latency on the virtual device, one run: the device's `screencap -p` PNG streamed
// over exec, raw `screencap` encoded on the host (PNG level 1; JPEG q80 at ≤ 2000 px and at
// ≤ 1000 px), and the real `adb exec-out screencap -p` through a private adb server.
//
// Usage: screencap_bench [N]   (N screenshots per variant, default 20)
// The virtual device's PNG is "stored" deflate (no compression work), so on it the device PNG
// path is cheap; on a phone `screencap -p` spends most of its time compressing, which the host
// encode skips. These figures show the host-side cost of each path, not a phone's.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "adbwire/device.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "support/bench_support.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 20;
  if (n <= 0) {
    std::fprintf(stderr, "usage: screencap_bench [N > 0]\n");
    return 2;
  }
  using adbwire::bench::median_ms;
  using adbwire::bench::time_each;
  try {
    adbwire::VirtualDevice vd;
    vd.start();
    adbwire::Device device = adbwire::Device::connect(vd.target());
    std::size_t bytes[4] = {};
    auto shot = [&](int slot, const adbwire::ScreenshotOptions& options) {
      return median_ms(
          time_each(n, [&] { bytes[slot] = adbwire::screenshot(device, options).bytes.size(); }));
    };
    adbwire::ScreenshotOptions device_png;
    device_png.encode_on_host = false;
    adbwire::ScreenshotOptions host_png;
    adbwire::ScreenshotOptions jpeg_2000;
    jpeg_2000.format = adbwire::ImageFormat::jpeg;
    jpeg_2000.max_side = 2000;
    adbwire::ScreenshotOptions jpeg_1000 = jpeg_2000;
    jpeg_1000.max_side = 1000;
    const double device_ms = shot(0, device_png);
    const double host_png_ms = shot(1, host_png);
    const double jpeg_2000_ms = shot(2, jpeg_2000);
    const double jpeg_1000_ms = shot(3, jpeg_1000);

    const adbwire::bench::PrivateAdb adb;
    adb.connect_device(vd.port());
    const std::string serial = "127.0.0.1:" + std::to_string(vd.port());
    bool adb_ok = true;
    const double adb_ms = median_ms(time_each(n, [&] {
      if (adb.run({"-s", serial, "exec-out", "screencap", "-p"}) != 0) adb_ok = false;
    }));
    if (!adb_ok) throw std::runtime_error("adb exec-out screencap -p failed");

    std::printf("screenshot of the 1080x2400 virtual screen, N = %d per variant (median)\n", n);
    std::printf("  adbwire device PNG (screencap -p)     %8.2f ms  %9zu bytes\n", device_ms,
                bytes[0]);
    std::printf("  adbwire raw + host PNG                %8.2f ms  %9zu bytes\n", host_png_ms,
                bytes[1]);
    std::printf("  adbwire raw + host JPEG q80 <=2000px  %8.2f ms  %9zu bytes\n", jpeg_2000_ms,
                bytes[2]);
    std::printf("  adbwire raw + host JPEG q80 <=1000px  %8.2f ms  %9zu bytes\n", jpeg_1000_ms,
                bytes[3]);
    std::printf("  adb exec-out screencap -p             %8.2f ms\n", adb_ms);
    std::printf(
        "ratios vs adb exec-out: device PNG %.1fx, host PNG %.1fx, JPEG<=2000 %.1fx, JPEG<=1000 "
        "%.1fx\n",
        adb_ms / device_ms, adb_ms / host_png_ms, adb_ms / jpeg_2000_ms, adb_ms / jpeg_1000_ms);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "screencap_bench: %s\n", error.what());
    return 1;
  }
}
