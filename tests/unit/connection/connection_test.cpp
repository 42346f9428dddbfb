// The connection runtime over an in-memory pipe to a scripted device-role Session.
#include "connection/connection.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "unit/connection/fake_device.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;
using test::FakeDevice;
using test::FakeDeviceOptions;

ConnectOptions quick_options() {
  ConnectOptions options;
  options.connect_timeout = 10s;
  options.command_timeout = 30s;
  return options;
}

Device connect_to(FakeDevice& fake, const ConnectOptions& options = quick_options()) {
  detail::Failure failure;
  auto connection =
      connection::Connection::establish(fake.factory(), "memory:fake", "fake", options, failure);
  failure.throw_if_failed();
  return Device(std::move(connection), options.command_timeout);
}

TEST(Connection, HandshakeGivesTheDeviceBanner) {
  FakeDevice fake;
  Device device = connect_to(fake);
  EXPECT_EQ(device.banner().system_type, "device");
  EXPECT_EQ(device.banner().property("ro.product.model"), "Fake");
  EXPECT_TRUE(device.has_feature("shell_v2"));
  EXPECT_FALSE(device.has_feature("sendrecv_v2"));
  EXPECT_EQ(device.serial(), "fake");
  const ConnectionInfo info = device.connection_info();
  EXPECT_EQ(info.auth, AuthMethod::none);
  EXPECT_EQ(info.max_payload, protocol::kMaxPayload);
  EXPECT_EQ(info.target, "memory:fake");
}

TEST(Connection, ExecReturnsTheBytes) {
  FakeDevice fake;
  Device device = connect_to(fake);
  EXPECT_EQ(device.exec("echo hello world"), "hello world");
}

TEST(Connection, ExecStreamsLargeOutputInOrder) {
  FakeDevice fake;
  Device device = connect_to(fake);
  constexpr std::size_t kSize = 3 * 1024 * 1024 + 17;
  std::size_t seen = 0;
  bool in_order = true;
  device.exec("source " + std::to_string(kSize), [&](std::span<const std::uint8_t> chunk) {
    for (std::uint8_t b : chunk) in_order = in_order && b == test::source_byte(seen++);
  });
  EXPECT_EQ(seen, kSize);
  EXPECT_TRUE(in_order);
}

TEST(Connection, ShellV2SeparatesStreamsAndReportsExitCode) {
  FakeDevice fake;
  Device device = connect_to(fake);
  const ShellResult ok = device.shell("true");
  EXPECT_EQ(ok.out, "true");
  EXPECT_EQ(ok.err, "err:true");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(device.shell("exit 42").exit_code, 42);
  EXPECT_EQ(device.shell("exit 255").exit_code, 255);
}

TEST(Connection, ShellV1WhenTheDeviceLacksShellV2) {
  FakeDeviceOptions options;
  options.features = {};
  FakeDevice fake(options);
  Device device = connect_to(fake);
  const ShellResult result = device.shell("echo merged");
  EXPECT_EQ(result.out, "echo merged");
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.exit_code, -1);
}

TEST(Connection, RefusedServiceIsNotSupported) {
  FakeDevice fake;
  Device device = connect_to(fake);
  std::error_code error;
  Stream stream = device.open("framebuffer:", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_FALSE(stream.is_open());
  // The connection is still fine.
  EXPECT_EQ(device.exec("echo still here"), "still here");
}

TEST(Connection, EmptyServiceIsAnInvalidArgument) {
  FakeDevice fake;
  Device device = connect_to(fake);
  std::error_code error;
  device.open("", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
  EXPECT_THROW(device.open(""), Error);
}

TEST(Connection, OpenDeadlinePasses) {
  FakeDevice fake;
  Device device = connect_to(fake);
  std::error_code error;
  device.open("never:", deadline_after(100ms), error);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_EQ(device.exec("echo after"), "after");
}

TEST(Connection, ReadDeadlinePassesAndTheStreamStaysUsable) {
  FakeDevice fake;
  Device device = connect_to(fake);
  Stream stream = device.open("exec:wait");
  std::uint8_t buffer[16];
  std::error_code error;
  EXPECT_EQ(stream.read_some(buffer, deadline_after(50ms), error), 0u);
  EXPECT_EQ(error, errc::timeout);
  EXPECT_TRUE(stream.is_open());
  fake.release_waiting();
  EXPECT_EQ(stream.read_all(), "done");
}

TEST(Connection, CommandDeadlineFromOptions) {
  FakeDevice fake;
  ConnectOptions options = quick_options();
  options.command_timeout = 100ms;
  Device device = connect_to(fake, options);
  std::error_code error;
  device.exec("wait", kDefaultDeadline, error);
  EXPECT_EQ(error, errc::timeout);
  try {
    device.exec("wait");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::timeout);
    EXPECT_NE(std::string(e.what()).find("exec:wait"), std::string::npos) << e.what();
  }
}

TEST(Connection, HandshakeTimeoutWhenTheDeviceNeverAnswers) {
  FakeDeviceOptions fake_options;
  fake_options.answer_handshake = false;
  FakeDevice fake(fake_options);
  ConnectOptions options = quick_options();
  options.connect_timeout = 150ms;
  detail::Failure failure;
  auto connection =
      connection::Connection::establish(fake.factory(), "memory:fake", "fake", options, failure);
  EXPECT_EQ(connection, nullptr);
  EXPECT_EQ(failure.code, errc::timeout);
  EXPECT_NE(failure.detail.find("did not answer the ADB handshake"), std::string::npos)
      << failure.detail;
}

TEST(Connection, DisconnectWakesEveryWaiterWithDeviceOffline) {
  FakeDevice fake;
  Device device = connect_to(fake);
  constexpr int kWaiters = 8;
  std::vector<std::error_code> errors(kWaiters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] { device.exec("wait", kNoDeadline, errors[i]); });
  }
  ASSERT_TRUE(fake.wait_open_streams(kWaiters));
  fake.drop();
  for (auto& thread : threads) thread.join();
  for (const std::error_code& error : errors)
    EXPECT_EQ(error, errc::device_offline) << error.message();

  // Later calls fail the same way at once.
  std::error_code later;
  device.exec("echo x", kNoDeadline, later);
  EXPECT_EQ(later, errc::device_offline);
  try {
    device.shell("true");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::device_offline);
    EXPECT_NE(std::string(e.what()).find("memory:fake"), std::string::npos) << e.what();
  }
}

TEST(Connection, CloseWakesEveryWaiterWithClosed) {
  FakeDevice fake;
  Device device = connect_to(fake);
  constexpr int kWaiters = 4;
  std::vector<std::error_code> errors(kWaiters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] { device.exec("wait", kNoDeadline, errors[i]); });
  }
  std::error_code read_error;
  Stream stream = device.open("exec:wait");
  std::thread reader([&] {
    std::uint8_t buffer[8];
    stream.read_some(buffer, kNoDeadline, read_error);
  });
  ASSERT_TRUE(fake.wait_open_streams(kWaiters + 1));
  device.close();
  for (auto& thread : threads) thread.join();
  reader.join();
  EXPECT_EQ(read_error, errc::closed);
  for (const std::error_code& error : errors) EXPECT_EQ(error, errc::closed) << error.message();
  std::error_code later;
  device.open("exec:echo x", kDefaultDeadline, later);
  EXPECT_EQ(later, errc::closed);
}

TEST(Connection, ProtocolViolationFailsWaitersWithProtocolError) {
  FakeDevice fake;
  Device device = connect_to(fake);
  std::error_code error;
  std::thread waiter([&] { device.exec("wait", kNoDeadline, error); });
  ASSERT_TRUE(fake.wait_open_streams(1));
  fake.send_raw(std::vector<std::uint8_t>(24, 0xAB));
  waiter.join();
  EXPECT_EQ(error, errc::protocol_error);
}

// The host acknowledges data only as the reader takes it, so a reader that stops reading
// stops the device: it never holds more than a couple of payloads.
TEST(Connection, UnreadDataHoldsTheDeviceBack) {
  FakeDeviceOptions fake_options;
  fake_options.max_payload = 4096;
  FakeDevice fake(fake_options);
  Device device = connect_to(fake);
  constexpr std::size_t kSize = 1024 * 1024;
  Stream stream = device.open("exec:source " + std::to_string(kSize));
  std::uint8_t first = 0;
  ASSERT_EQ(stream.read_some(std::span(&first, 1)), 1u);
  EXPECT_EQ(first, test::source_byte(0));
  // Round trips on other streams give a host that acknowledged too early every chance to
  // pull more data from the device.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(device.exec("echo sync"), "sync");
  EXPECT_GE(fake.queued_for_host(), kSize - 2 * 4096);

  std::string rest = stream.read_all();
  ASSERT_EQ(rest.size(), kSize - 1);
  for (std::size_t i = 0; i < rest.size(); ++i) {
    ASSERT_EQ(static_cast<std::uint8_t>(rest[i]), test::source_byte(i + 1)) << i;
  }
}

// The resident memory of this process now, in KiB (VmRSS); 0 when unknown.
long resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return 0;
}

// A reader that never reads, on a stream with far more to come: the connection acknowledges
// only what fits under its bound as it arrives (one max payload ahead; with delayed_ack the
// window more), so the device is left holding the rest and the host's memory stays flat while
// the reader stalls. Then the reader takes everything, in order.
TEST(Connection, AStalledReaderLeavesTheDeviceWaitingAndMemoryFlat) {
  for (const std::uint32_t window : {0u, 512u * 1024}) {
    SCOPED_TRACE("delayed_ack window " + std::to_string(window));
    FakeDeviceOptions fake_options;
    fake_options.delayed_ack_window = window;
    FakeDevice fake(fake_options);
    ConnectOptions options = quick_options();
    options.delayed_ack_window = window;
    Device device = connect_to(fake, options);
    ASSERT_EQ(device.connection_info().delayed_ack, window != 0);
    constexpr std::size_t kSize = 64 * 1024 * 1024;
    Stream stream = device.open("exec:source " + std::to_string(kSize));
    std::uint8_t first = 0;
    ASSERT_EQ(stream.read_some(std::span(&first, 1)), 1u);
    for (int i = 0; i < 5; ++i) ASSERT_EQ(device.exec("echo sync"), "sync");
    const std::size_t held_back = fake.queued_for_host();
    const long before_kib = resident_kib();
    for (int i = 0; i < 20; ++i) {
      std::this_thread::sleep_for(10ms);
      ASSERT_EQ(device.exec("echo sync"), "sync");
    }
    const long after_kib = resident_kib();
    // The device was told to wait: what it had not sent, it still has.
    EXPECT_EQ(fake.queued_for_host(), held_back);
    const std::size_t payload = device.connection_info().max_payload;
    EXPECT_GE(held_back, kSize - (2 * payload + window));
    EXPECT_GT(before_kib, 0);
    EXPECT_LT(after_kib - before_kib, 2 * 1024) << "RSS " << before_kib << " -> " << after_kib;

    std::vector<std::uint8_t> rest(kSize - 1);
    std::size_t got = 0;
    while (got < rest.size()) {
      const std::size_t n = stream.read_some(std::span(rest).subspan(got));
      ASSERT_GT(n, 0u) << "after " << got;
      got += n;
    }
    std::uint8_t end = 0;
    EXPECT_EQ(stream.read_some(std::span(&end, 1)), 0u);
    for (std::size_t i = 0; i < rest.size(); ++i) ASSERT_EQ(rest[i], test::source_byte(i + 1)) << i;
  }
}

// read_chunk hands over received payloads whole (the rest of one that read_some began), in
// order, then 0 at the end.
TEST(Connection, ReadChunkTakesPayloadsWholeAfterAPartialReadSome) {
  FakeDeviceOptions fake_options;
  fake_options.max_payload = 4096;
  FakeDevice fake(fake_options);
  Device device = connect_to(fake);
  constexpr std::size_t kSize = 256 * 1024 + 5;
  Stream stream = device.open("exec:source " + std::to_string(kSize));
  std::vector<std::uint8_t> all(10);
  ASSERT_EQ(stream.read_some(all), 10u);
  std::vector<std::uint8_t> chunk(3, 0xEE);  // old content must not survive
  std::size_t largest = 0;
  while (const std::size_t n = stream.read_chunk(chunk, 100)) {
    ASSERT_EQ(n, chunk.size());
    largest = std::max(largest, n);
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  EXPECT_TRUE(chunk.empty());
  EXPECT_EQ(largest, 4096u);  // whole payloads, past max: nothing was copied to fit it
  ASSERT_EQ(all.size(), kSize);
  for (std::size_t i = 0; i < kSize; ++i) ASSERT_EQ(all[i], test::source_byte(i)) << i;
}

TEST(Connection, DelayedAckWhenBothSidesOfferIt) {
  FakeDeviceOptions fake_options;
  fake_options.delayed_ack_window = 512 * 1024;
  fake_options.max_payload = 64 * 1024;
  FakeDevice fake(fake_options);
  ConnectOptions options = quick_options();
  options.delayed_ack_window = 256 * 1024;
  Device device = connect_to(fake, options);
  EXPECT_TRUE(device.connection_info().delayed_ack);
  constexpr std::size_t kSize = 2 * 1024 * 1024 + 3;
  const std::string out = device.exec("source " + std::to_string(kSize));
  ASSERT_EQ(out.size(), kSize);
  for (std::size_t i = 0; i < kSize; ++i)
    ASSERT_EQ(static_cast<std::uint8_t>(out[i]), test::source_byte(i)) << i;

  Stream sink = device.open("sink:");
  std::vector<std::uint8_t> data(kSize, 0x11);
  sink.write(data);
  ASSERT_TRUE(fake.wait_received(kSize));
}

TEST(Connection, NoDelayedAckUnlessTheHostAsks) {
  FakeDeviceOptions fake_options;
  fake_options.delayed_ack_window = 512 * 1024;
  FakeDevice fake(fake_options);
  Device device = connect_to(fake);
  EXPECT_FALSE(device.connection_info().delayed_ack);
  EXPECT_EQ(device.exec("echo classic"), "classic");
}

TEST(Connection, WritesReachTheDevice) {
  FakeDeviceOptions fake_options;
  fake_options.max_payload = 64 * 1024;
  FakeDevice fake(fake_options);
  Device device = connect_to(fake);
  Stream stream = device.open("sink:");
  std::vector<std::uint8_t> data(3 * 1024 * 1024 + 5, 0x5a);
  stream.write(data);
  ASSERT_TRUE(fake.wait_received(data.size()));
  EXPECT_EQ(fake.received_bytes(), data.size());
}

TEST(Connection, WriteAfterTheDeviceEndedTheStreamIsClosed) {
  FakeDevice fake;
  Device device = connect_to(fake);
  Stream stream = device.open("exec:echo bye");
  EXPECT_EQ(stream.read_all(), "bye");
  std::error_code error;
  stream.write(protocol::bytes_of("more"), kDefaultDeadline, error);
  EXPECT_EQ(error, errc::closed);
}

TEST(Connection, ManyThreadsShareOneDevice) {
  FakeDevice fake;
  Device device = connect_to(fake);
  constexpr int kThreads = 16;
  constexpr int kPerThread = 20;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string n = std::to_string(t * 1000 + i);
        if (device.exec("echo " + n) != n) ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Connection, StreamOutlivingItsDeviceReportsClosed) {
  FakeDevice fake;
  Stream stream;
  {
    Device device = connect_to(fake);
    stream = device.open("exec:wait");
  }
  std::uint8_t buffer[4];
  std::error_code error;
  stream.read_some(buffer, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::closed);
}

TEST(Connection, MovedFromDeviceAndEmptyStreamReportClosed) {
  FakeDevice fake;
  Device device = connect_to(fake);
  Device moved = std::move(device);
  std::error_code error;
  device.exec("echo x", kDefaultDeadline,
              error);  // NOLINT(bugprone-use-after-move): the contract under test
  EXPECT_EQ(error, errc::closed);
  EXPECT_EQ(moved.exec("echo x"), "x");
  Stream empty;
  std::uint8_t buffer[1];
  empty.read_some(buffer, kDefaultDeadline, error);
  EXPECT_EQ(error, errc::closed);
}

}  // namespace
}  // namespace adbwire
