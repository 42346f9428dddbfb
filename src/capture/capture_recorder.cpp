#include "capture/capture_recorder.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "adbwire/error.hpp"
#include "base/mutex.hpp"
#include "base/private_files.hpp"

namespace adbwire::capture {

std::shared_ptr<CaptureRecorder> CaptureRecorder::create(const std::filesystem::path& path,
                                                         CaptureLink link, std::error_code& error) {
  error.clear();
  // A recording holds every byte of the link (what the screen showed, keys offered): 0600, and
  // never written through a link someone planted at its name.
  detail::Failure failure;
  const int fd = detail::create_private_file(path, failure);
  std::FILE* file = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (file == nullptr) {
    if (fd >= 0) ::close(fd);
    error = failure ? failure.code : make_error_code(errc::io_error);
    return nullptr;
  }
  return std::shared_ptr<CaptureRecorder>(new CaptureRecorder(path, link, file));
}

CaptureRecorder::CaptureRecorder(std::filesystem::path path, CaptureLink link, std::FILE* file)
    : path_(std::move(path)), link_(link), file_(file) {}

CaptureRecorder::~CaptureRecorder() {
  if (file_ != nullptr) std::fclose(file_);
}

std::error_code CaptureRecorder::error() const {
  detail::MutexLock lock(mutex_);
  return error_;
}

std::unique_ptr<RecordedConnection> CaptureRecorder::add(CaptureWriterOptions options) {
  options.link = link_;
  std::vector<std::uint8_t> bytes;
  detail::MutexLock lock(mutex_);
  // Without a known host port, each connection gets its own, so tools tell them apart.
  if (options.host_port == CaptureWriterOptions{}.host_port) options.host_port = next_port_++;
  std::unique_ptr<RecordedConnection> connection(
      new RecordedConnection(shared_from_this(), options));
  const auto now = std::chrono::system_clock::now();
  if (header_written_) {
    connection->encoder_.begin_connection(now, bytes);
  } else {
    connection->encoder_.begin(now, bytes);
    header_written_ = true;
  }
  put(bytes);
  return connection;
}

void CaptureRecorder::write(CaptureEncoder& encoder, CaptureDirection direction,
                            std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> out;
  detail::MutexLock lock(mutex_);
  encoder.record(direction, bytes, std::chrono::system_clock::now(), out);
  put(out);
}

void CaptureRecorder::finish(CaptureEncoder& encoder) {
  std::vector<std::uint8_t> out;
  detail::MutexLock lock(mutex_);
  encoder.end(std::chrono::system_clock::now(), out);
  put(out);
}

void CaptureRecorder::put(const std::vector<std::uint8_t>& bytes) {
  if (error_ || bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::fflush(file_) != 0)
    error_ = make_error_code(errc::io_error);
}

RecordedConnection::RecordedConnection(std::shared_ptr<CaptureRecorder> recorder,
                                       CaptureWriterOptions options)
    : recorder_(std::move(recorder)), encoder_(options) {}

RecordedConnection::~RecordedConnection() { recorder_->finish(encoder_); }

void RecordedConnection::record(CaptureDirection direction, std::span<const std::uint8_t> bytes) {
  if (!bytes.empty()) recorder_->write(encoder_, direction, bytes);
}

}  // namespace adbwire::capture
