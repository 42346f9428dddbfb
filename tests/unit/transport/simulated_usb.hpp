// A simulated USB link for tests of the USB logic without hardware:
//   SimulatedWire   packets in both directions, sized by wMaxPacketSize; a host transfer
//                   ends on a short packet or a full buffer, as on a real bus; endpoints can
//                   be made to stall, and the device can vanish.
//   SimulatedPipe   the host's BulkPipe on a wire (what UsbLink and UsbTransport drive).
//   SimulatedAdbd   a device-role protocol::Session reading the wire the way adbd does
//                   (16 KiB reads that only a short packet or ZLP ends; a header must come
//                   alone and a payload must not overrun) and answering a few services.
//   SimulatedBus    a UsbBackend whose devices tests plug and unplug.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/protocol/session.hpp"
#include "base/mutex.hpp"
#include "transport/usb_backend.hpp"

namespace adbwire::test {

class SimulatedWire {
 public:
  explicit SimulatedWire(std::uint16_t max_packet_size) : max_packet_size_(max_packet_size) {}

  std::uint16_t max_packet_size() const { return max_packet_size_; }

  // ---- host side (SimulatedPipe calls these)
  transport::UsbTransferResult host_out(std::span<const std::uint8_t> data);
  transport::UsbTransferResult host_in(std::span<std::uint8_t> buffer,
                                       std::chrono::milliseconds timeout);
  transport::UsbStatus clear_halt(bool in);
  transport::UsbStatus reset();

  // ---- device side
  // adbd's read: up to max bytes, ended by a short packet (or ZLP) or a full buffer.
  // nullopt when the wire vanished or nothing came within timeout.
  std::optional<std::vector<std::uint8_t>> device_read(std::size_t max,
                                                       std::chrono::milliseconds timeout);
  // Queues data for the host as packets; no ZLP (adbd never sends one).
  void device_write(std::span<const std::uint8_t> data);

  // ---- faults
  // The OUT (or IN) endpoint halts when `after_packets` more packets have passed, and halts
  // again right after each clear-halt, `times` times in all.
  void stall_out(std::size_t after_packets, int times = 1);
  void stall_in(std::size_t after_packets, int times = 1);
  // The device disappears: blocked and later calls on both sides fail with no_device.
  void vanish();
  // The device side goes away (adbd stopping): its reads end, even one in the middle of a
  // transfer; the host side keeps its queues.
  void close_device();
  bool vanished() const;

  // ---- what happened
  std::vector<std::size_t> out_transfers() const;  // sizes of host OUT transfers; 0 = ZLP
  std::vector<std::size_t> in_requests() const;    // sizes the host asked for
  int clear_halts() const;
  int resets() const;

 private:
  struct Stall {
    std::size_t countdown = 0;
    int times = 0;
    bool halted = false;
    // True when the next packet must not pass (and halts the endpoint).
    bool hits();
  };

  const std::uint16_t max_packet_size_;
  mutable detail::Mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<std::uint8_t>> to_device_ ADBWIRE_GUARDED_BY(mutex_);  // packets
  std::deque<std::vector<std::uint8_t>> to_host_ ADBWIRE_GUARDED_BY(mutex_);    // packets
  Stall out_stall_ ADBWIRE_GUARDED_BY(mutex_);
  Stall in_stall_ ADBWIRE_GUARDED_BY(mutex_);
  bool vanished_ ADBWIRE_GUARDED_BY(mutex_) = false;
  bool device_closed_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::vector<std::size_t> out_transfers_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<std::size_t> in_requests_ ADBWIRE_GUARDED_BY(mutex_);
  int clear_halts_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  int resets_ ADBWIRE_GUARDED_BY(mutex_) = 0;
};

class SimulatedPipe final : public transport::BulkPipe {
 public:
  explicit SimulatedPipe(std::shared_ptr<SimulatedWire> wire) : wire_(std::move(wire)) {}
  transport::UsbTransferResult bulk_out(std::span<const std::uint8_t> data,
                                        std::chrono::milliseconds) override {
    return wire_->host_out(data);
  }
  transport::UsbTransferResult bulk_in(std::span<std::uint8_t> buffer,
                                       std::chrono::milliseconds timeout) override {
    return wire_->host_in(buffer, timeout);
  }
  transport::UsbStatus clear_halt(bool in) override { return wire_->clear_halt(in); }
  transport::UsbStatus reset() override { return wire_->reset(); }
  std::uint16_t max_packet_size() const override { return wire_->max_packet_size(); }

 private:
  std::shared_ptr<SimulatedWire> wire_;
};

// Services: "exec:echo TEXT" (TEXT, then close), "exec:source N" (N bytes of
// source_byte(i), then close), "exec:wait" (silent until the wire vanishes). Others refused.
class SimulatedAdbd {
 public:
  explicit SimulatedAdbd(std::shared_ptr<SimulatedWire> wire);
  ~SimulatedAdbd();

  // Waits (up to 30 s) until `count` exec:wait streams are open; false on timeout.
  bool wait_waiting_streams(std::size_t count);
  // What broke adbd's framing ("received too many bytes while waiting for payload"), empty
  // while all is well.
  std::string framing_error() const;

 private:
  void serve();
  bool take(const std::vector<std::uint8_t>& block);
  void handle_events();
  void flush();

  std::shared_ptr<SimulatedWire> wire_;
  protocol::Session session_;
  std::vector<std::uint8_t> message_;  // header + payload being collected
  std::size_t payload_expected_ = 0;
  bool in_payload_ = false;

  mutable detail::Mutex mutex_;
  std::condition_variable changed_;
  bool stop_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::size_t waiting_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  std::string framing_error_ ADBWIRE_GUARDED_BY(mutex_);
  std::thread thread_;
};

inline std::uint8_t source_byte(std::size_t i) {
  return static_cast<std::uint8_t>((i * 13 + (i >> 9)) & 0xff);
}

// One simulated device on a SimulatedBus.
struct SimulatedDevice {
  transport::UsbDeviceRecord record;
  std::string serial;
  transport::UsbStatus open_status = transport::UsbStatus::ok;  // access, busy, …
  std::shared_ptr<SimulatedWire> wire;                          // the pipe open() hands out
};

// A phone-like record: one configuration with an ADB interface on bulk 0x81/0x01.
transport::UsbDeviceRecord adb_phone_record(std::uint8_t bus, std::uint8_t address,
                                            std::string port_path,
                                            std::uint16_t max_packet_size = 512);

class SimulatedBus final : public transport::UsbBackend {
 public:
  void plug(SimulatedDevice device);
  void unplug(std::uint8_t bus, std::uint8_t address);
  void set_hotplug(bool has_events) { hotplug_ = has_events; }
  void set_enumerate_status(transport::UsbStatus status) { enumerate_status_ = status; }
  // What opening the device at bus/address answers from now on (busy: another program has it).
  void set_open_status(std::uint8_t bus, std::uint8_t address, transport::UsbStatus status);
  // probe() calls so far: each opens the device and claims its interface.
  std::size_t probes() const;

  transport::UsbStatus enumerate(std::vector<transport::UsbDeviceRecord>& out) override;
  transport::UsbStatus read_serial(const transport::UsbDeviceRecord& device,
                                   std::string& serial) override;
  transport::UsbStatus probe(const transport::UsbDeviceRecord& device,
                             const transport::AdbInterfaceChoice& choice,
                             std::string& serial) override;
  transport::UsbStatus open(const transport::UsbDeviceRecord& device,
                            const transport::AdbInterfaceChoice& choice, std::string& serial,
                            std::unique_ptr<transport::BulkPipe>& pipe) override;
  std::shared_ptr<void> watch(std::function<void()> changed) override;

 private:
  const SimulatedDevice* find(const transport::UsbDeviceRecord& record) const
      ADBWIRE_REQUIRES(mutex_);
  void notify();

  mutable detail::Mutex mutex_;
  std::vector<SimulatedDevice> devices_ ADBWIRE_GUARDED_BY(mutex_);
  std::vector<std::weak_ptr<std::function<void()>>> watchers_ ADBWIRE_GUARDED_BY(mutex_);
  std::size_t probes_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  bool hotplug_ = true;
  transport::UsbStatus enumerate_status_ = transport::UsbStatus::ok;
};

}  // namespace adbwire::test
