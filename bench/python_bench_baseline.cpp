// The C++ side of bench/python_bench.py: the loops the Python bench times, run by the library
// directly against the same virtual device in the same run, so the ratio is the binding's cost.
// Usage: python_bench_baseline TARGET N   Prints "exec_true_ms=M snapshot_ms=M" (medians of N).
// The snapshot is taken as text, as Python's Page.snapshot() returns it.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "adbwire/device.hpp"
#include "adbwire/page.hpp"
#include "support/bench_support.hpp"

int main(int argc, char** argv) {
  const int n = argc == 3 ? std::atoi(argv[2]) : 0;
  if (n <= 0) {
    std::fprintf(stderr, "usage: python_bench_baseline TARGET N   (N > 0)\n");
    return 2;
  }
  using adbwire::bench::median_ms;
  using adbwire::bench::time_each;
  try {
    adbwire::Page page = adbwire::Page::connect(argv[1]);
    adbwire::Device& device = page.device();
    for (int i = 0; i < 10; ++i) {
      device.exec("true");
      page.snapshot();
    }
    const double exec_ms = median_ms(time_each(n, [&] { device.exec("true"); }));
    std::size_t chars = 0;
    const double snapshot_ms =
        median_ms(time_each(n, [&] { chars += page.snapshot().to_text().size(); }));
    std::printf("exec_true_ms=%.4f snapshot_ms=%.4f snapshot_chars=%zu\n", exec_ms, snapshot_ms,
                chars / static_cast<std::size_t>(n));
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "python_bench_baseline: %s\n", error.what());
    return 1;
  }
}
