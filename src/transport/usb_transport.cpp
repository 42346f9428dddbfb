#include "transport/usb_transport.hpp"

#include <algorithm>
#include <asio/error.hpp>
#include <asio/post.hpp>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/mutex.hpp"
#include "transport/usb_devices.hpp"
#include "transport/usb_framing.hpp"

namespace adbwire::transport {
namespace {

// Read-ahead bound: the reader thread pauses when the runtime has this much unread.
constexpr std::size_t kMaxUnread = 4 * 1024 * 1024;

class UsbTransport final : public Transport {
 public:
  UsbTransport(asio::io_context& io, std::unique_ptr<BulkPipe> pipe, std::string description)
      : io_(io), pipe_(std::move(pipe)), link_(*pipe_, std::move(description)) {
    reader_ = std::thread([this] { read_loop(); });
    writer_ = std::thread([this] { write_loop(); });
  }

  ~UsbTransport() override {
    close();
    reader_.join();
    writer_.join();
  }

  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override {
    detail::MutexLock lock(mutex_);
    read_buffer_ = buffer;
    read_handler_ = std::move(handler);
    try_complete_read();
  }

  void async_write(std::span<const std::uint8_t> data, Handler handler) override {
    {
      detail::MutexLock lock(mutex_);
      if (!stop_.load()) {
        write_data_ = data;
        write_handler_ = std::move(handler);
        changed_.notify_all();
        return;
      }
    }
    asio::post(io_, [handler = std::move(handler)] { handler(asio::error::operation_aborted, 0); });
  }

  void close() noexcept override {
    detail::MutexLock lock(mutex_);
    stop_.store(true);
    try_complete_read();
    changed_.notify_all();
  }

  std::string description() const override { return link_.description(); }

 private:
  void try_complete_read() ADBWIRE_REQUIRES(mutex_) {
    if (!read_handler_) return;
    std::error_code error;
    std::size_t n = 0;
    if (stop_.load()) {
      error = asio::error::operation_aborted;
    } else if (unread_offset_ < unread_.size()) {
      n = std::min(read_buffer_.size(), unread_.size() - unread_offset_);
      std::memcpy(read_buffer_.data(), unread_.data() + unread_offset_, n);
      unread_offset_ += n;
      if (unread_offset_ == unread_.size()) {
        unread_.clear();
        unread_offset_ = 0;
      }
      changed_.notify_all();
    } else if (read_error_) {
      error = read_error_;
    } else {
      return;
    }
    asio::post(io_, [handler = std::move(read_handler_), error, n] { handler(error, n); });
    read_handler_ = nullptr;
  }

  void read_loop() {
    std::vector<std::uint8_t> chunk;
    for (;;) {
      {
        detail::MutexLock lock(mutex_);
        changed_.wait(lock.native(), [&]() ADBWIRE_REQUIRES(mutex_) {
          return stop_.load() || unread_.size() - unread_offset_ < kMaxUnread;
        });
        if (stop_.load()) return;
      }
      chunk.clear();
      const std::error_code error = link_.read(chunk, stop_);
      detail::MutexLock lock(mutex_);
      unread_.insert(unread_.end(), chunk.begin(), chunk.end());
      if (error) read_error_ = error;
      try_complete_read();
      if (error) return;
    }
  }

  void write_loop() {
    for (;;) {
      std::span<const std::uint8_t> data;
      Handler handler;
      {
        detail::MutexLock lock(mutex_);
        changed_.wait(lock.native(), [&]() ADBWIRE_REQUIRES(mutex_) {
          return stop_.load() || write_handler_ != nullptr;
        });
        if (!write_handler_) return;
        data = write_data_;
        handler = std::move(write_handler_);
        write_handler_ = nullptr;
      }
      const std::error_code error =
          stop_.load() ? std::error_code(asio::error::operation_aborted) : link_.write(data, stop_);
      asio::post(io_, [handler = std::move(handler), error, n = error ? 0 : data.size()] {
        handler(error, n);
      });
    }
  }

  asio::io_context& io_;
  std::unique_ptr<BulkPipe> pipe_;
  UsbLink link_;  // read_loop uses its IN half, write_loop its OUT half
  std::thread reader_;
  std::thread writer_;

  std::atomic<bool> stop_{false};
  detail::Mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::uint8_t> unread_ ADBWIRE_GUARDED_BY(mutex_);
  std::size_t unread_offset_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  std::error_code read_error_ ADBWIRE_GUARDED_BY(mutex_);
  std::span<std::uint8_t> read_buffer_ ADBWIRE_GUARDED_BY(mutex_);
  Handler read_handler_ ADBWIRE_GUARDED_BY(mutex_);
  std::span<const std::uint8_t> write_data_ ADBWIRE_GUARDED_BY(mutex_);
  Handler write_handler_ ADBWIRE_GUARDED_BY(mutex_);
};

std::string list_serials(const std::vector<std::string>& serials) {
  std::string text;
  for (const std::string& serial : serials) {
    if (!text.empty()) text += ", ";
    text += serial.empty() ? "(serial unreadable)" : serial;
  }
  return text;
}

}  // namespace

std::unique_ptr<Transport> make_usb_transport(asio::io_context& io, std::unique_ptr<BulkPipe> pipe,
                                              std::string description) {
  return std::make_unique<UsbTransport>(io, std::move(pipe), std::move(description));
}

UsbConnector::UsbConnector(std::shared_ptr<UsbBackend> backend, UsbDeviceRecord record,
                           AdbInterfaceChoice choice, std::string serial)
    : backend_(std::move(backend)),
      record_(std::move(record)),
      choice_(choice),
      serial_(std::move(serial)) {}

std::optional<UsbConnector> UsbConnector::find(const std::string& serial,
                                               detail::Failure& failure) {
  auto backend = default_usb_backend(failure);
  if (!backend) return std::nullopt;
  return find(std::move(backend), serial, failure);
}

std::optional<UsbConnector> UsbConnector::find(std::shared_ptr<UsbBackend> backend,
                                               const std::string& serial,
                                               detail::Failure& failure) {
  std::vector<UsbDeviceRecord> records;
  const UsbStatus status = backend->enumerate(records);
  if (status == UsbStatus::not_supported) {
    failure.set(errc::not_supported,
                "no USB bus visible (container/VM?): usb: targets cannot work here; use tcp: or "
                "server: targets");
    return std::nullopt;
  }
  if (status != UsbStatus::ok) {
    failure.set(errc::io_error, std::string("cannot list USB devices: ") + usb_status_text(status));
    return std::nullopt;
  }

  struct Candidate {
    const UsbDeviceRecord* record;
    AdbInterfaceChoice choice;
    std::string serial;
    UsbStatus serial_status;
  };
  std::vector<Candidate> candidates;
  for (const UsbDeviceRecord& record : records) {
    const auto choice = find_adb_interface(record);
    if (!choice) continue;
    Candidate candidate{&record, *choice, record.serial_from_sysfs, UsbStatus::ok};
    if (candidate.serial.empty())
      candidate.serial_status = backend->read_serial(record, candidate.serial);
    if (candidate.serial_status == UsbStatus::no_device) continue;
    candidates.push_back(std::move(candidate));
  }
  std::vector<std::string> seen;
  for (const Candidate& candidate : candidates) seen.push_back(candidate.serial);
  auto connector = [&](const Candidate& candidate) {
    return UsbConnector(backend, *candidate.record, candidate.choice, candidate.serial);
  };

  if (serial.empty()) {
    if (candidates.size() == 1) return connector(candidates.front());
    if (candidates.empty()) {
      failure.set(errc::not_found,
                  "no USB device with an ADB interface: plug the phone in, unlock it and turn on "
                  "USB debugging (Developer options); `adbwire doctor` shows what is visible");
    } else {
      failure.set(errc::invalid_argument, std::to_string(candidates.size()) +
                                              " USB devices have an ADB interface (" +
                                              list_serials(seen) + "): pick one with usb:SERIAL");
    }
    return std::nullopt;
  }
  for (const Candidate& candidate : candidates) {
    if (candidate.serial == serial) return connector(candidate);
  }
  for (const Candidate& candidate : candidates) {
    if (candidate.serial.empty() && candidate.serial_status == UsbStatus::access) {
      failure.set(
          errc::permission_denied,
          "no accessible USB device has serial '" + serial + "'; " +
              usb_access_advice(UsbStatus::access,
                                "USB device " + describe_usb_location(*candidate.record), ""));
      return std::nullopt;
    }
  }
  failure.set(errc::not_found, "no USB device with serial '" + serial + "'" +
                                   (seen.empty() ? std::string(" (no ADB device on the bus)")
                                                 : " (seen: " + list_serials(seen) + ")") +
                                   "; `adbwire doctor` shows what is visible");
  return std::nullopt;
}

std::unique_ptr<Transport> UsbConnector::operator()(asio::io_context& io, Deadline,
                                                    detail::Failure& failure) const {
  std::string serial;
  std::unique_ptr<BulkPipe> pipe;
  const UsbStatus status = backend_->open(record_, choice_, serial, pipe);
  if (status != UsbStatus::ok) {
    failure.set(usb_status_errc(status),
                usb_access_advice(status, "USB device " + describe_usb_location(record_), serial_));
    return nullptr;
  }
  return make_usb_transport(io, std::move(pipe), target());
}

}  // namespace adbwire::transport
