#include "transport/traffic_observer.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include "capture/capture_recorder.hpp"

namespace adbwire::transport {
namespace {

CaptureDirection opposite(CaptureDirection direction) {
  return direction == CaptureDirection::host_to_device ? CaptureDirection::device_to_host
                                                       : CaptureDirection::host_to_device;
}

class ObservedTransport final : public Transport {
 public:
  ObservedTransport(std::unique_ptr<Transport> inner, std::shared_ptr<TrafficObserver> observer,
                    CaptureDirection sending)
      : inner_(std::move(inner)), observer_(std::move(observer)), sending_(sending) {}

  void async_read_some(std::span<std::uint8_t> buffer, Handler handler) override {
    inner_->async_read_some(buffer, [this, buffer, handler = std::move(handler)](
                                        const std::error_code& error, std::size_t bytes) {
      if (bytes > 0) observer_->on_bytes(opposite(sending_), buffer.first(bytes));
      handler(error, bytes);
    });
  }

  void async_write(std::span<const std::uint8_t> data, Handler handler) override {
    observer_->on_bytes(sending_, data);
    inner_->async_write(data, std::move(handler));
  }

  void close() noexcept override { inner_->close(); }
  std::string description() const override { return inner_->description(); }

 private:
  std::unique_ptr<Transport> inner_;
  std::shared_ptr<TrafficObserver> observer_;
  CaptureDirection sending_;
};

class FileRecorder final : public TrafficObserver {
 public:
  explicit FileRecorder(std::unique_ptr<capture::RecordedConnection> connection)
      : connection_(std::move(connection)) {}
  void on_bytes(CaptureDirection direction, std::span<const std::uint8_t> bytes) override {
    connection_->record(direction, bytes);
  }

 private:
  std::unique_ptr<capture::RecordedConnection> connection_;
};

}  // namespace

std::unique_ptr<Transport> observe(std::unique_ptr<Transport> inner,
                                   std::shared_ptr<TrafficObserver> observer,
                                   CaptureDirection sending) {
  return std::make_unique<ObservedTransport>(std::move(inner), std::move(observer), sending);
}

std::shared_ptr<TrafficObserver> record_to_file(const std::filesystem::path& path,
                                                const CaptureWriterOptions& options,
                                                detail::Failure& failure) {
  std::error_code error;
  auto recorder = capture::CaptureRecorder::create(path, options.link, error);
  if (!recorder) {
    failure.set(error, "cannot create the capture file " + path.string() + " (" +
                           std::strerror(errno) + "): check the folder exists and is writable");
    return nullptr;
  }
  return std::make_shared<FileRecorder>(recorder->add(options));
}

}  // namespace adbwire::transport
