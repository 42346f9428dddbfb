// Recording live connections into one pcapng file. The connection runtime (one link), the
// adb server path (one TCP connection per stream) and the virtual device (one connection per
// host) all add their connections to one shared CaptureRecorder, so a session is one file.
// Internal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <system_error>
#include <vector>

#include "adbwire/capture_writer.hpp"
#include "base/mutex.hpp"

namespace adbwire::capture {

class RecordedConnection;

// Thread safe: connections on different threads record concurrently; every record is written
// and flushed whole under one lock, so a crash loses at most the message being written.
class CaptureRecorder : public std::enable_shared_from_this<CaptureRecorder> {
 public:
  // Creates or truncates path. Returns nullptr with error = io_error when it cannot.
  static std::shared_ptr<CaptureRecorder> create(const std::filesystem::path& path,
                                                 CaptureLink link, std::error_code& error);
  ~CaptureRecorder();
  CaptureRecorder(const CaptureRecorder&) = delete;
  CaptureRecorder& operator=(const CaptureRecorder&) = delete;

  // A connection in this file (options.link is forced to the file's); its start (TCP
  // handshake) is written now. The connection keeps the recorder alive.
  std::unique_ptr<RecordedConnection> add(CaptureWriterOptions options);

  const std::filesystem::path& path() const noexcept { return path_; }
  // The first write error (io_error; the disk is full?): recording stopped there, the
  // connections carry on. Empty while all is well.
  std::error_code error() const;

 private:
  friend class RecordedConnection;
  CaptureRecorder(std::filesystem::path path, CaptureLink link, std::FILE* file);
  void write(CaptureEncoder& encoder, CaptureDirection direction,
             std::span<const std::uint8_t> bytes);
  void finish(CaptureEncoder& encoder);
  void put(const std::vector<std::uint8_t>& bytes) ADBWIRE_REQUIRES(mutex_);

  const std::filesystem::path path_;
  const CaptureLink link_;
  mutable detail::Mutex mutex_;
  std::FILE* file_ ADBWIRE_GUARDED_BY(mutex_);
  bool header_written_ ADBWIRE_GUARDED_BY(mutex_) = false;
  std::error_code error_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint16_t next_port_ ADBWIRE_GUARDED_BY(mutex_) = 50000;
};

// One recorded connection. Not thread safe by itself: record from one thread at a time (the
// connection's I/O thread), or guard it. Its destructor records the connection's end.
class RecordedConnection {
 public:
  ~RecordedConnection();
  RecordedConnection(const RecordedConnection&) = delete;
  RecordedConnection& operator=(const RecordedConnection&) = delete;

  // Bytes that went one way, stamped now.
  void record(CaptureDirection direction, std::span<const std::uint8_t> bytes);

 private:
  friend class CaptureRecorder;
  RecordedConnection(std::shared_ptr<CaptureRecorder> recorder, CaptureWriterOptions options);

  std::shared_ptr<CaptureRecorder> recorder_;
  CaptureEncoder encoder_;
};

}  // namespace adbwire::capture
