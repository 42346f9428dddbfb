// `logs --follow` as a cursor a client polls: one running logcat stream per device, whose
// records are numbered as they arrive and kept in a bounded buffer; a call hands back the
// records after the cursor it was given and the cursor to pass next. Internal.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/logcat.hpp"
#include "base/cancel_token.hpp"
#include "base/mutex.hpp"

namespace adbwire::verbs {

// What one poll read.
struct LogBatch {
  std::vector<LogRecord> records;  // after the cursor, oldest first
  std::uint64_t cursor = 0;        // the number of the last record returned (or the cursor given)
  std::uint64_t missed = 0;        // records after the cursor the buffer had already dropped
  bool more = false;               // records wait beyond those returned
};

// One device's followed log. The stream runs until this is destroyed or it fails. Thread safe.
class LogFollow {
 public:
  // The buffer's bounds: records and bytes of tag and message.
  static constexpr std::size_t kMaxRecords = 5000;
  static constexpr std::size_t kMaxBytes = 4 * 1024 * 1024;

  // Starts `logcat -B -T tail` with filter on device (Logcat::start's errors); records are
  // numbered from first. device must outlive this.
  LogFollow(Device& device, const LogFilter& filter, std::size_t tail, std::uint64_t first);
  ~LogFollow();
  LogFollow(const LogFollow&) = delete;
  LogFollow& operator=(const LogFollow&) = delete;

  // The records numbered after cursor, at most max, waiting up to wait (cancellable) for the
  // first when there is none yet, then gathering a burst until it pauses for 100 ms.
  LogBatch read(std::uint64_t cursor, std::size_t max, std::chrono::milliseconds wait,
                const detail::CancelToken& cancel);
  // The number the next record will get.
  std::uint64_t next() const;
  const LogFilter& filter() const noexcept { return filter_; }
  // Why the stream ended (Logcat::error and its detail); empty while it runs or after a clean end.
  std::error_code error() const { return logcat_.error(); }
  std::string error_detail() const { return logcat_.error_detail(); }
  bool running() const { return logcat_.running(); }

 private:
  void add(const LogRecord& record);

  LogFilter filter_;
  mutable detail::Mutex mutex_;
  std::condition_variable arrived_;
  std::deque<LogRecord> records_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t first_ ADBWIRE_GUARDED_BY(mutex_);  // the number of records_.front()
  std::size_t bytes_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  // Last: stopped first, so its thread no longer calls add() while the rest goes.
  Logcat logcat_;
};

// The followed logs of one surface, by device key. Not thread safe (the surface's worker uses it).
class LogFollows {
 public:
  // The follow of key, started (or restarted, when the filter differs or the stream ended)
  // on device with filter and tail.
  LogFollow& get(const std::string& key, Device& device, const LogFilter& filter, std::size_t tail);
  // Ends the follow of key (its device is going away).
  void drop(const std::string& key) { follows_.erase(key); }

 private:
  std::map<std::string, std::unique_ptr<LogFollow>> follows_;
  // Numbers keep growing across restarts, so an old cursor never reads a new stream's records
  // as if they came after it.
  std::uint64_t next_ = 1;
};

}  // namespace adbwire::verbs
