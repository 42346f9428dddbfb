#include "unit/transport/simulated_usb.hpp"

#include <algorithm>
#include <charconv>

#include "adbwire/protocol/message.hpp"
#include "transport/usb_framing.hpp"

namespace adbwire::test {

using transport::UsbStatus;
using transport::UsbTransferResult;

// ---- SimulatedWire ------------------------------------------------------------------------

bool SimulatedWire::Stall::hits() {
  if (halted) return true;
  if (times == 0) return false;
  if (countdown > 0) {
    --countdown;
    return false;
  }
  --times;
  halted = true;
  return true;
}

UsbTransferResult SimulatedWire::host_out(std::span<const std::uint8_t> data) {
  detail::MutexLock lock(mutex_);
  if (vanished_) return {UsbStatus::no_device, 0};
  out_transfers_.push_back(data.size());
  std::size_t sent = 0;
  do {
    if (out_stall_.hits()) return {UsbStatus::stall, sent};
    const std::size_t n = std::min<std::size_t>(max_packet_size_, data.size() - sent);
    to_device_.emplace_back(data.begin() + static_cast<std::ptrdiff_t>(sent),
                            data.begin() + static_cast<std::ptrdiff_t>(sent + n));
    sent += n;
  } while (sent < data.size());
  changed_.notify_all();
  return {UsbStatus::ok, sent};
}

UsbTransferResult SimulatedWire::host_in(std::span<std::uint8_t> buffer,
                                         std::chrono::milliseconds timeout) {
  detail::MutexLock lock(mutex_);
  in_requests_.push_back(buffer.size());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t got = 0;
  for (;;) {
    if (vanished_) return {UsbStatus::no_device, got};
    if (in_stall_.halted) return {UsbStatus::stall, got};
    if (to_host_.empty()) {
      if (changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout &&
          to_host_.empty() && !vanished_) {
        return {UsbStatus::timeout, got};
      }
      continue;
    }
    if (in_stall_.hits()) return {UsbStatus::stall, got};
    const std::vector<std::uint8_t>& packet = to_host_.front();
    if (packet.size() > buffer.size() - got) return {UsbStatus::overflow, got};
    std::copy(packet.begin(), packet.end(), buffer.begin() + static_cast<std::ptrdiff_t>(got));
    got += packet.size();
    const bool short_packet = packet.size() < max_packet_size_;
    to_host_.pop_front();
    if (short_packet || got == buffer.size()) return {UsbStatus::ok, got};
  }
}

UsbStatus SimulatedWire::clear_halt(bool in) {
  detail::MutexLock lock(mutex_);
  if (vanished_) return UsbStatus::no_device;
  ++clear_halts_;
  (in ? in_stall_ : out_stall_).halted = false;
  return UsbStatus::ok;
}

UsbStatus SimulatedWire::reset() {
  detail::MutexLock lock(mutex_);
  if (vanished_) return UsbStatus::no_device;
  ++resets_;
  in_stall_ = {};
  out_stall_ = {};
  to_device_.clear();
  to_host_.clear();
  changed_.notify_all();  // a device read in progress ends, as functionfs's does on a reset
  return UsbStatus::ok;
}

std::optional<std::vector<std::uint8_t>> SimulatedWire::device_read(
    std::size_t max, std::chrono::milliseconds timeout) {
  detail::MutexLock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int resets_at_start = resets_;
  std::vector<std::uint8_t> block;
  for (;;) {
    // A reset or the device side closing ends a read in progress; its partial data is lost.
    if (vanished_ || device_closed_ || resets_ != resets_at_start) return std::nullopt;
    if (to_device_.empty()) {
      // A read in progress keeps waiting for the packet that ends it, as functionfs does.
      if (block.empty()) {
        if (changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout &&
            to_device_.empty()) {
          return std::nullopt;
        }
      } else {
        changed_.wait(lock.native());
      }
      continue;
    }
    const std::vector<std::uint8_t> packet = std::move(to_device_.front());
    to_device_.pop_front();
    block.insert(block.end(), packet.begin(), packet.end());
    if (packet.size() < max_packet_size_ || block.size() >= max) return block;
  }
}

void SimulatedWire::device_write(std::span<const std::uint8_t> data) {
  detail::MutexLock lock(mutex_);
  for (std::size_t at = 0; at < data.size(); at += max_packet_size_) {
    const std::size_t n = std::min<std::size_t>(max_packet_size_, data.size() - at);
    to_host_.emplace_back(data.begin() + static_cast<std::ptrdiff_t>(at),
                          data.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  changed_.notify_all();
}

void SimulatedWire::stall_out(std::size_t after_packets, int times) {
  detail::MutexLock lock(mutex_);
  out_stall_.countdown = after_packets;
  out_stall_.times = times;
}

void SimulatedWire::stall_in(std::size_t after_packets, int times) {
  detail::MutexLock lock(mutex_);
  in_stall_.countdown = after_packets;
  in_stall_.times = times;
}

bool SimulatedWire::vanished() const {
  detail::MutexLock lock(mutex_);
  return vanished_;
}

void SimulatedWire::close_device() {
  detail::MutexLock lock(mutex_);
  device_closed_ = true;
  changed_.notify_all();
}

void SimulatedWire::vanish() {
  detail::MutexLock lock(mutex_);
  vanished_ = true;
  changed_.notify_all();
}

std::vector<std::size_t> SimulatedWire::out_transfers() const {
  detail::MutexLock lock(mutex_);
  return out_transfers_;
}

std::vector<std::size_t> SimulatedWire::in_requests() const {
  detail::MutexLock lock(mutex_);
  return in_requests_;
}

int SimulatedWire::clear_halts() const {
  detail::MutexLock lock(mutex_);
  return clear_halts_;
}

int SimulatedWire::resets() const {
  detail::MutexLock lock(mutex_);
  return resets_;
}

// ---- SimulatedAdbd ------------------------------------------------------------------------

namespace {

constexpr std::size_t kAdbdReadSize = 16 * 1024;

protocol::SessionOptions adbd_session() {
  protocol::SessionOptions options;
  options.role = protocol::Role::device;
  options.banner.system_type = "device";
  options.banner.properties = {{"ro.product.model", "SimulatedUsb"}};
  options.banner.features = {"shell_v2"};
  return options;
}

}  // namespace

SimulatedAdbd::SimulatedAdbd(std::shared_ptr<SimulatedWire> wire)
    : wire_(std::move(wire)), session_(adbd_session()), thread_([this] { serve(); }) {}

SimulatedAdbd::~SimulatedAdbd() {
  {
    detail::MutexLock lock(mutex_);
    stop_ = true;
  }
  wire_->close_device();  // a read waiting for the rest of a transfer ends too
  thread_.join();
}

bool SimulatedAdbd::wait_waiting_streams(std::size_t count) {
  detail::MutexLock lock(mutex_);
  return detail::wait_until(changed_, lock, deadline_after(std::chrono::seconds(30)),
                            [&]() ADBWIRE_REQUIRES(mutex_) { return waiting_ >= count; });
}

std::string SimulatedAdbd::framing_error() const {
  detail::MutexLock lock(mutex_);
  return framing_error_;
}

void SimulatedAdbd::serve() {
  for (;;) {
    {
      detail::MutexLock lock(mutex_);
      if (stop_ || !framing_error_.empty()) return;
    }
    const auto block = wire_->device_read(kAdbdReadSize, std::chrono::milliseconds(20));
    if (!block) {
      if (wire_->vanished()) return;
      continue;
    }
    if (!take(*block)) return;
    handle_events();
    flush();
  }
}

// adbd's rules for what one read may hold (daemon/usb.cpp): a header alone, then payload
// reads that never overrun the declared length. Anything else ends the connection.
bool SimulatedAdbd::take(const std::vector<std::uint8_t>& block) {
  auto fail = [&](const char* why) {
    detail::MutexLock lock(mutex_);
    framing_error_ = why;
    return false;
  };
  if (!in_payload_) {
    if (block.size() != protocol::kHeaderSize) {
      return fail("received packet of unexpected length while reading header");
    }
    message_ = block;
    payload_expected_ =
        protocol::decode_header(
            std::span<const std::uint8_t, protocol::kHeaderSize>(block.data(), block.size()))
            .data_length;
    in_payload_ = payload_expected_ != 0;
  } else {
    if (message_.size() - protocol::kHeaderSize + block.size() > payload_expected_) {
      return fail("received too many bytes while waiting for payload");
    }
    message_.insert(message_.end(), block.begin(), block.end());
    in_payload_ = message_.size() - protocol::kHeaderSize < payload_expected_;
  }
  if (in_payload_) return true;
  if (session_.receive(message_)) return fail("session error");
  return true;
}

void SimulatedAdbd::handle_events() {
  protocol::Event event;
  while (session_.next_event(event)) {
    if (event.type == protocol::Event::Type::stream_data) {
      session_.acknowledge(event.stream, event.data.size());
      continue;
    }
    if (event.type != protocol::Event::Type::open_requested) continue;
    const std::string& service = event.service;
    if (service.starts_with("exec:echo ")) {
      session_.accept_open(event.stream);
      const std::string text = service.substr(10);
      session_.write(event.stream,
                     std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
      session_.close_stream(event.stream);
    } else if (service.starts_with("exec:source ")) {
      session_.accept_open(event.stream);
      std::size_t size = 0;
      std::from_chars(service.data() + 12, service.data() + service.size(), size);
      std::vector<std::uint8_t> data(size);
      for (std::size_t i = 0; i < size; ++i) data[i] = source_byte(i);
      session_.write(event.stream, data);
      session_.close_stream(event.stream);
    } else if (service == "exec:wait") {
      session_.accept_open(event.stream);
      detail::MutexLock lock(mutex_);
      ++waiting_;
      changed_.notify_all();
    } else {
      session_.refuse_open(event.stream);
    }
  }
}

void SimulatedAdbd::flush() {
  const auto pending = session_.pending_output();
  if (pending.empty()) return;
  transport::OutboundSplitter splitter;
  std::vector<std::vector<std::uint8_t>> writes;
  splitter.feed(pending, writes);
  session_.consume_output(pending.size());
  for (const auto& write : writes) wire_->device_write(write);
}

// ---- SimulatedBus -------------------------------------------------------------------------

transport::UsbDeviceRecord adb_phone_record(std::uint8_t bus, std::uint8_t address,
                                            std::string port_path, std::uint16_t max_packet_size) {
  transport::UsbDeviceRecord record;
  record.vendor_id = 0x18d1;
  record.product_id = 0x4ee7;
  record.bus = bus;
  record.address = address;
  record.port_path = std::move(port_path);
  record.serial_index = 3;
  record.active_configuration = 1;
  transport::UsbConfigDescriptor config;
  config.value = 1;
  config.interfaces.push_back({0, 0, 0x06, 0x01, 0x01, {{0x82, 0x02, max_packet_size}}});
  config.interfaces.push_back(
      {1, 0, 0xff, 0x42, 0x01, {{0x81, 0x02, max_packet_size}, {0x01, 0x02, max_packet_size}}});
  record.configurations.push_back(std::move(config));
  return record;
}

void SimulatedBus::plug(SimulatedDevice device) {
  {
    detail::MutexLock lock(mutex_);
    devices_.push_back(std::move(device));
  }
  notify();
}

void SimulatedBus::unplug(std::uint8_t bus, std::uint8_t address) {
  {
    detail::MutexLock lock(mutex_);
    std::erase_if(devices_, [&](const SimulatedDevice& device) {
      if (device.record.bus != bus || device.record.address != address) return false;
      if (device.wire) device.wire->vanish();
      return true;
    });
  }
  notify();
}

void SimulatedBus::notify() {
  std::vector<std::shared_ptr<std::function<void()>>> live;
  {
    detail::MutexLock lock(mutex_);
    if (!hotplug_) return;
    for (const auto& weak : watchers_) {
      if (auto watcher = weak.lock()) live.push_back(std::move(watcher));
    }
  }
  for (const auto& watcher : live) (*watcher)();
}

UsbStatus SimulatedBus::enumerate(std::vector<transport::UsbDeviceRecord>& out) {
  detail::MutexLock lock(mutex_);
  if (enumerate_status_ != UsbStatus::ok) return enumerate_status_;
  for (const SimulatedDevice& device : devices_) out.push_back(device.record);
  return UsbStatus::ok;
}

const SimulatedDevice* SimulatedBus::find(const transport::UsbDeviceRecord& record) const {
  for (const SimulatedDevice& device : devices_) {
    if (device.record.bus == record.bus && device.record.address == record.address) return &device;
  }
  return nullptr;
}

UsbStatus SimulatedBus::read_serial(const transport::UsbDeviceRecord& record, std::string& serial) {
  detail::MutexLock lock(mutex_);
  const SimulatedDevice* device = find(record);
  if (device == nullptr) return UsbStatus::no_device;
  if (device->open_status == UsbStatus::access) return UsbStatus::access;
  serial = device->serial;
  return UsbStatus::ok;
}

UsbStatus SimulatedBus::probe(const transport::UsbDeviceRecord& record,
                              const transport::AdbInterfaceChoice&, std::string& serial) {
  detail::MutexLock lock(mutex_);
  ++probes_;
  const SimulatedDevice* device = find(record);
  if (device == nullptr) return UsbStatus::no_device;
  if (device->open_status != UsbStatus::access) serial = device->serial;
  return device->open_status;
}

void SimulatedBus::set_open_status(std::uint8_t bus, std::uint8_t address, UsbStatus status) {
  detail::MutexLock lock(mutex_);
  for (SimulatedDevice& device : devices_) {
    if (device.record.bus == bus && device.record.address == address) device.open_status = status;
  }
}

std::size_t SimulatedBus::probes() const {
  detail::MutexLock lock(mutex_);
  return probes_;
}

UsbStatus SimulatedBus::open(const transport::UsbDeviceRecord& record,
                             const transport::AdbInterfaceChoice&, std::string& serial,
                             std::unique_ptr<transport::BulkPipe>& pipe) {
  detail::MutexLock lock(mutex_);
  const SimulatedDevice* device = find(record);
  if (device == nullptr) return UsbStatus::no_device;
  if (device->open_status != UsbStatus::ok) return device->open_status;
  serial = device->serial;
  pipe = std::make_unique<SimulatedPipe>(device->wire);
  return UsbStatus::ok;
}

std::shared_ptr<void> SimulatedBus::watch(std::function<void()> changed) {
  detail::MutexLock lock(mutex_);
  if (!hotplug_) return nullptr;
  auto token = std::make_shared<std::function<void()>>(std::move(changed));
  watchers_.push_back(token);
  return token;
}

}  // namespace adbwire::test
