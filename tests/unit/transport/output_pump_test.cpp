// transport/output_pump.hpp: one write in flight, what queues meanwhile sent next and in order,
// a failed write reported and the pump freed, and two real protocol sessions brought online
// through it over the in-memory pipe.
#include "transport/output_pump.hpp"

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/session.hpp"
#include "transport/memory_pipe.hpp"

namespace adbwire::transport {
namespace {

static_assert(OutputSource<protocol::Session>);

// A source the test fills by hand.
struct Queue {
  std::vector<std::uint8_t> bytes;
  std::span<const std::uint8_t> pending_output() const noexcept { return bytes; }
  void consume_output(std::size_t n) noexcept {
    bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  }
};

// Everything that reaches one end of a pipe.
struct Collector {
  explicit Collector(Transport& end) : end(end) { read(); }
  void read() {
    end.async_read_some(buffer, [this](const std::error_code& error, std::size_t n) {
      if (error) return;
      received.insert(received.end(), buffer.begin(), buffer.begin() + static_cast<long>(n));
      read();
    });
  }
  Transport& end;
  std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(7);  // small: reads split
  std::vector<std::uint8_t> received;
};

TEST(OutputPump, TakeMovesAllPendingAndStartsNothingWhileAWriteIsInFlight) {
  OutputPump pump;
  Queue queue;
  EXPECT_FALSE(pump.take(queue));  // nothing pending
  EXPECT_FALSE(pump.writing());

  queue.bytes = {1, 2, 3};
  ASSERT_TRUE(pump.take(queue));
  EXPECT_TRUE(pump.writing());
  EXPECT_EQ(pump.buffer(), (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_TRUE(queue.bytes.empty());

  queue.bytes = {4, 5};
  EXPECT_FALSE(pump.take(queue));  // in flight: the source keeps its output, the buffer stays
  EXPECT_EQ(queue.bytes, (std::vector<std::uint8_t>{4, 5}));
  EXPECT_EQ(pump.buffer(), (std::vector<std::uint8_t>{1, 2, 3}));

  pump.written();
  EXPECT_FALSE(pump.writing());
  ASSERT_TRUE(pump.take(queue));
  EXPECT_EQ(pump.buffer(), (std::vector<std::uint8_t>{4, 5}));
}

TEST(OutputPump, FlushSendsWhatQueuedMeanwhileInOrder) {
  asio::io_context io;
  // Not a structured binding: the lambda below uses near, and clang before 16 cannot capture one.
  const auto ends = make_memory_pipe(io, io, "memory:pump");
  Transport& near = *ends.first;
  Collector collector(*ends.second);
  OutputPump pump;
  Queue queue;
  std::vector<std::uint8_t> expected;
  int writes = 0;
  std::function<void()> flush = [&] {
    pump.flush(queue, near, [&](const std::error_code& error) {
      EXPECT_FALSE(error) << error.message();
      EXPECT_FALSE(pump.writing());  // written() ran before done
      ++writes;
      flush();
    });
  };
  for (std::uint8_t round = 0; round < 5; ++round) {
    for (std::uint8_t i = 0; i < 10; ++i) {
      const auto byte = static_cast<std::uint8_t>(round * 10 + i);
      queue.bytes.push_back(byte);
      expected.push_back(byte);
      flush();  // a no-op while the first write of the round is in flight
    }
    io.run();
    io.restart();
  }
  EXPECT_EQ(collector.received, expected);
  EXPECT_TRUE(queue.bytes.empty());
  EXPECT_EQ(writes, 10);  // per round: the first byte alone, then the nine that queued behind it
}

TEST(OutputPump, AFailedWriteReachesDoneAndFreesThePump) {
  asio::io_context io;
  auto [near, far] = make_memory_pipe(io, io, "memory:pump");
  far->close();
  OutputPump pump;
  Queue queue{{9, 9, 9}};
  std::error_code seen;
  int calls = 0;
  pump.flush(queue, *near, [&](const std::error_code& error) {
    seen = error;
    ++calls;
  });
  io.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, make_error_code(errc::closed));
  EXPECT_FALSE(pump.writing());
  EXPECT_TRUE(queue.bytes.empty());  // taken: what to do after a failed write is the owner's call
}

// A host and a device session, each pumped onto one end of a pipe, reach online.
TEST(OutputPump, CarriesTwoSessionsThroughTheirHandshake) {
  asio::io_context io;
  auto [host_end, device_end] = make_memory_pipe(io, io, "memory:pump");

  struct Side {
    protocol::Session session;
    Transport& end;
    OutputPump pump;
    std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(4096);
    void flush() {
      pump.flush(session, end, [this](const std::error_code& error) {
        if (!error) flush();
      });
    }
    void read() {
      end.async_read_some(buffer, [this](const std::error_code& error, std::size_t n) {
        if (error) return;
        EXPECT_FALSE(session.receive({buffer.data(), n})) << session.error_detail();
        protocol::Event event;
        while (session.next_event(event)) {
        }
        flush();
        read();
      });
    }
  };
  protocol::SessionOptions host_options;
  host_options.banner.system_type = "host";
  protocol::SessionOptions device_options;
  device_options.role = protocol::Role::device;
  device_options.banner.system_type = "device";
  Side host{protocol::Session(host_options), *host_end, {}};
  Side device{protocol::Session(device_options), *device_end, {}};
  host.read();
  device.read();
  host.session.start();
  host.flush();
  for (int i = 0; i < 100 && (host.session.state() != protocol::SessionState::online ||
                              device.session.state() != protocol::SessionState::online);
       ++i) {
    io.run_one();
  }
  EXPECT_EQ(host.session.state(), protocol::SessionState::online);
  EXPECT_EQ(device.session.state(), protocol::SessionState::online);
  host_end->close();
  device_end->close();
  io.run();
}

}  // namespace
}  // namespace adbwire::transport
