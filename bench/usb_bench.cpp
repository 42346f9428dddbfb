// USB throughput through the simulated bulk pipe (tests/unit/transport/simulated_usb): the whole
// host stack (Device, connection runtime, UsbTransport, UsbLink's framing with its ZLPs and
// short packets) against an adbd-like device that enforces adbd's USB framing, in one process:
// the device's output read to its end ("exec:source N": whole packets, each transfer ended by a
// short one). There is no adb to compare with here (adb needs a real bus), so it prints MB/s per
// packet size, for runs to be compared across commits. The simulated device acknowledges the
// host's writes only as far as the USB tests need, so host-to-device is not measured here.
//
// Usage: usb_bench [MiB] [RUNS]   (default 32 MiB, 5 runs)
//
// Only the transfer on an open connection is timed. Connecting and closing are not: closing
// waits for the link's reader to leave its bulk IN transfer, which it checks between timeout
// slices (UsbLink::kSlice, 200 ms), so a test that connects, moves a few bytes and closes takes
// about 200 ms whatever it moves.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "connection/connection.hpp"
#include "transport/usb_transport.hpp"
#include "unit/transport/simulated_usb.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

adbwire::Device connect(std::uint16_t packet, std::shared_ptr<adbwire::test::SimulatedWire>& wire,
                        std::unique_ptr<adbwire::test::SimulatedAdbd>& adbd) {
  auto bus = std::make_shared<adbwire::test::SimulatedBus>();
  wire = std::make_shared<adbwire::test::SimulatedWire>(packet);
  bus->plug({adbwire::test::adb_phone_record(1, 5, "1-2", packet), "PHONE1",
             adbwire::transport::UsbStatus::ok, wire});
  adbd = std::make_unique<adbwire::test::SimulatedAdbd>(wire);
  adbwire::ConnectOptions options;
  options.connect_timeout = 20s;
  options.command_timeout = 60s;
  adbwire::detail::Failure failure;
  std::shared_ptr<adbwire::connection::Connection> connection;
  if (auto usb = adbwire::transport::UsbConnector::find(bus, "PHONE1", failure)) {
    connection = adbwire::connection::Connection::establish(*usb, usb->target(), usb->serial(),
                                                            options, failure);
  }
  failure.throw_if_failed();
  return adbwire::Device(std::move(connection), options.command_timeout);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Device to host: the device's "exec:source N" read to its end, chunk by chunk.
double read_from_device(adbwire::Device& device, std::size_t size) {
  const auto start = Clock::now();
  adbwire::Stream stream = device.open("exec:source " + std::to_string(size));
  std::vector<std::uint8_t> chunk;
  std::size_t got = 0;
  for (;;) {
    std::error_code error;
    const std::size_t n = stream.read_chunk(chunk, 1 << 20, adbwire::kDefaultDeadline, error);
    if (error || n == 0) break;
    got += n;
  }
  if (got != size) throw adbwire::Error(adbwire::errc::protocol_error, "a short read");
  return seconds_since(start);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 32;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::size_t size = mib << 20;
  if (mib == 0 || runs <= 0) {
    std::fprintf(stderr, "usage: usb_bench [MiB] [RUNS]\n");
    return 2;
  }
  std::printf("USB through the simulated bulk pipe: %zu MiB, %d runs (MB = 10^6 bytes)\n", mib,
              runs);
  try {
    // 512: high speed; 64: full speed (eight times the packets for the same bytes).
    for (const std::uint16_t packet : {std::uint16_t{512}, std::uint16_t{64}}) {
      std::shared_ptr<adbwire::test::SimulatedWire> wire;
      std::unique_ptr<adbwire::test::SimulatedAdbd> adbd;
      adbwire::Device device = connect(packet, wire, adbd);
      std::vector<double> in;
      for (int run = 0; run < runs; ++run) in.push_back(read_from_device(device, size));
      const auto rate = [&](double seconds) { return static_cast<double>(size) / seconds / 1e6; };
      std::printf("  %3u-byte packets  device->host %7.1f MB/s (%.1f-%.1f)\n", packet,
                  rate(median(in)), rate(*std::max_element(in.begin(), in.end())),
                  rate(*std::min_element(in.begin(), in.end())));
      if (!adbd->framing_error().empty()) {
        std::fprintf(stderr, "adbd's framing broke: %s\n", adbd->framing_error().c_str());
        return 1;
      }
    }
  } catch (const adbwire::Error& error) {
    std::fprintf(stderr, "usb_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
