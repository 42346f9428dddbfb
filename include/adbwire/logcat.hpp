// Logcat as records: `exec:logcat -B` (liblog's binary entries, logger_entry v1–v4) decoded
// on the host. Binary rather than `-v threadtime` text because every field arrives exact:
// the year and nanoseconds of the time, tags with spaces or colons, multi-line messages as
// one record, and no locale or format differences between Android versions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire {

namespace detail {
struct Failure;
}  // namespace detail

// android_LogPriority values.
enum class LogLevel : std::uint8_t {
  unknown = 0,
  verbose = 2,
  debug = 3,
  info = 4,
  warn = 5,
  error = 6,
  fatal = 7,
  silent = 8,  // filters only: nothing is at or above it
};

// The level of an adb letter (V D I W E F S, either case); nullopt for anything else.
std::optional<LogLevel> log_level_from_letter(char letter) noexcept;
// 'V' … 'S'; '?' for unknown.
char log_level_letter(LogLevel level) noexcept;

struct LogRecord {
  std::chrono::system_clock::time_point time;
  std::int32_t pid = 0;
  std::uint32_t tid = 0;
  LogLevel level = LogLevel::unknown;
  std::string tag;
  std::string message;       // as logged; a multi-line message stays one record
  std::uint32_t uid = 0;     // logger_entry v4 only; 0 before
  std::uint32_t buffer = 0;  // log id (0 main, 3 system, 4 crash …); v3+ only
};

// Which records pass, as adb's filterspecs: "TAG:L" per tag, "*:L" for the rest.
struct LogFilter {
  std::map<std::string, LogLevel, std::less<>> tags;
  LogLevel default_level = LogLevel::verbose;

  // Parses adb filterspecs ("ActivityManager:I", "*:S", "MyApp" = MyApp:V); silent_others
  // is adb's -s (default level S). Errors: invalid_argument naming the bad spec.
  static LogFilter parse(const std::vector<std::string>& specs, bool silent_others = false);
  bool passes(const LogRecord& record) const noexcept;
  // The specs again, for the device's logcat command line.
  std::vector<std::string> specs() const;
};

// Sans-IO decoder of the `logcat -B` byte stream: bytes in (split anywhere), records out.
// Not thread safe. Records of binary buffers (events, stats, security) are skipped.
class LogcatDecoder {
 public:
  // Appends every complete record to out. Errors: parse_error (a header or length no
  // logger_entry has: the stream is not `logcat -B` output); the decoder is then unusable.
  void feed(std::span<const std::uint8_t> bytes, std::vector<LogRecord>& out,
            std::error_code& error);
  // Bytes held back waiting for the rest of a record.
  std::size_t buffered() const noexcept { return pending_.size(); }

 private:
  std::vector<std::uint8_t> pending_;
  bool failed_ = false;
};

struct LogcatOptions {
  LogFilter filter;
  // Records kept for recent(); the oldest is dropped beyond it (0 keeps none).
  std::size_t ring_capacity = 1000;
  // -d: read what the device holds, then the stream ends (wait() returns). Otherwise follow.
  // A dump is held to the Device's output_limits().logcat bytes: a device whose dump never
  // ends is stopped there with limit_exceeded (error(), error_detail()).
  bool dump = false;
  // -T N: start with the last N records the device holds instead of all of them.
  std::optional<std::size_t> tail;
  // Clear the device's log first (logcat -c).
  bool clear = false;
  // More words for the device's logcat, passed as given (each shell-quoted): options adbwire
  // does not read itself ("-b", "crash", "--pid=123"). Records still come binary (-B); what
  // the device's logcat says about a word it refuses ends the stream (command_failed).
  std::vector<std::string> device_args;
};

// Called on the Logcat's reader thread for each record that passes the filter. May throw:
// reading then stops and error() says why.
using LogRecordHandler = std::function<void(const LogRecord&)>;

// One running `logcat -B` stream read by a thread of its own. Move-only; the destructor
// stops it. recent(), running(), error() and stop() are thread safe.
class Logcat {
 public:
  Logcat() noexcept;
  // Opens the logcat stream (deadline covers the open and, with options.clear, the clear)
  // and starts reading. Errors: those of Device::open and Device::shell; invalid_argument
  // for a filter tag the device's command line cannot carry (spaces, quotes).
  static Logcat start(Device& device, const LogcatOptions& options, LogRecordHandler on_record,
                      Deadline deadline = kDefaultDeadline);
  static Logcat start(Device& device, const LogcatOptions& options, LogRecordHandler on_record,
                      Deadline deadline, std::error_code& error);
  Logcat(Logcat&&) noexcept;
  Logcat& operator=(Logcat&&) noexcept;
  ~Logcat();

  // The last ring_capacity records that passed the filter, oldest first (a copy).
  std::vector<LogRecord> recent() const;
  // Records that passed the filter since start (including those the ring dropped).
  std::uint64_t received() const;
  // False once the stream ended, failed or was stopped.
  bool running() const;
  // Waits until the stream ends (dump mode) or fails; false at the deadline.
  bool wait(Deadline deadline) const;
  // Why reading ended: empty for a clean end or stop(); command_failed (the device's logcat
  // printed words instead of records: an option it refused, no logcat; error_detail() carries
  // them, escaped and bounded), parse_error, device_offline,
  // limit_exceeded (a dump past its bound), … or the code of an exception the handler threw.
  std::error_code error() const;
  // What error() means, in words ("" when it is empty).
  std::string error_detail() const;
  // Closes the stream and joins the reader thread; the handler is not called afterwards.
  // Idempotent; must not be called from the handler.
  void stop() noexcept;

 private:
  struct State;
  static std::shared_ptr<State> start_state(Device& device, const LogcatOptions& options,
                                            LogRecordHandler on_record, Deadline deadline,
                                            detail::Failure& failure);
  std::shared_ptr<State> state_;
};

}  // namespace adbwire
