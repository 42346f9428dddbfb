// A scripted device for unit tests of the connection runtime: a device-role
// protocol::Session on its own I/O thread, at the far end of an in-memory pipe. No sockets.
//
// Services it answers (the service string of the host's OPEN):
//   exec:echo TEXT     writes TEXT, then closes
//   exec:source N      writes N bytes of source_byte(i), then closes
//   exec:wait          writes nothing until release_waiting(), then "done" and closes
//   sink:              reads and counts everything the host writes (received_bytes())
//   shell,v2,raw:CMD   shell v2: stdout CMD, stderr "err:CMD", exit status N for "exit N", else 0
//   shell:CMD          shell v1: CMD, then closes
//   never:             neither accepted nor refused (the host's open waits)
//   anything else      refused
#pragma once

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/protocol/session.hpp"
#include "base/mutex.hpp"
#include "connection/connection.hpp"
#include "transport/output_pump.hpp"
#include "transport/transport.hpp"

namespace adbwire::test {

inline std::uint8_t source_byte(std::size_t i) {
  return static_cast<std::uint8_t>((i * 7 + (i >> 10)) & 0xff);
}

struct FakeDeviceOptions {
  std::vector<std::string> features = {"shell_v2"};
  std::uint32_t max_payload = protocol::kMaxPayload;
  bool answer_handshake = true;          // false: swallow the host's CNXN and stay silent
  std::uint32_t delayed_ack_window = 0;  // non-zero: offer delayed_ack with this receive window
};

class FakeDevice {
 public:
  explicit FakeDevice(FakeDeviceOptions options = {});
  ~FakeDevice();

  // For Connection::establish: each call connects a fresh pipe to this device.
  connection::TransportFactory factory();

  // Hangs up: the host end sees the link end.
  void drop();
  // Sends raw bytes to the host (to break the protocol on purpose).
  void send_raw(std::vector<std::uint8_t> bytes);
  // Answers every exec:wait stream with "done" and closes it.
  void release_waiting();

  // Waits (up to 30 s) until `count` streams are open on the device side; false on timeout.
  bool wait_open_streams(std::size_t count);
  // Waits (up to 30 s) until sink: streams received `bytes` in total; false on timeout.
  bool wait_received(std::size_t bytes);
  std::size_t received_bytes();
  // Bytes the device has queued for the host and not yet sent (all streams): what
  // host-side backpressure holds back.
  std::size_t queued_for_host();

 private:
  void on_read(const std::error_code& error, std::size_t bytes);
  void handle_events();
  void answer_open(std::uint32_t stream, const std::string& service);
  void flush();
  template <class F>
  auto run_on_device(F f) -> decltype(f());

  FakeDeviceOptions options_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;

  // Device thread only.
  std::unique_ptr<transport::Transport> transport_;
  protocol::Session session_;
  std::vector<std::uint8_t> read_buffer_;
  transport::OutputPump pump_;
  std::set<std::uint32_t> sinks_;
  std::set<std::uint32_t> waiting_;
  std::set<std::uint32_t> open_;

  detail::Mutex mutex_;
  std::condition_variable changed_;
  std::size_t received_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  std::size_t open_count_ ADBWIRE_GUARDED_BY(mutex_) = 0;
};

}  // namespace adbwire::test
