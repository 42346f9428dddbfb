#include "adbwire/logcat.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/printable.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "base/shell_quote.hpp"
#include "connection/bounded_output.hpp"
#include "services/device_command.hpp"

namespace adbwire {
namespace {

// liblog: the v1 header has no hdr_size (its __pad is 0) and is 20 bytes; v2/v3 are 24, v4 28.
constexpr std::size_t kHeaderV1 = 20;
constexpr std::size_t kMaxHeader = 256;
// LOGGER_ENTRY_MAX_LEN: no entry's payload is longer.
constexpr std::size_t kMaxPayload = 5 * 1024;
// Log ids whose payload is binary, not priority/tag/message.
constexpr std::uint32_t kEventsBuffer = 2;
constexpr std::uint32_t kStatsBuffer = 5;
constexpr std::uint32_t kSecurityBuffer = 6;
constexpr std::size_t kReadSize = 64 * 1024;
// When the device's logcat prints words instead of records (an option it refuses, a buffer it
// lacks, no logcat at all: exec: carries its stderr in the same stream), those words are the
// error. At most this much of them is kept, and the rest is waited for this long.
constexpr std::size_t kDeviceTextLimit = 4096;
constexpr auto kDeviceTextWait = std::chrono::milliseconds(500);

// The device's words as one line an error message can carry: control bytes escaped, bounded.
std::string device_words(std::string_view text) {
  return "the device's logcat said: " + protocol::printable(detail::trim(text), kDeviceTextLimit);
}

bool tag_fits_command_line(std::string_view tag) {
  return !tag.empty() && std::all_of(tag.begin(), tag.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '*' || c == '/' || c == '@';
  });
}

}  // namespace

std::optional<LogLevel> log_level_from_letter(char letter) noexcept {
  switch (letter) {
    case 'V':
    case 'v':
      return LogLevel::verbose;
    case 'D':
    case 'd':
      return LogLevel::debug;
    case 'I':
    case 'i':
      return LogLevel::info;
    case 'W':
    case 'w':
      return LogLevel::warn;
    case 'E':
    case 'e':
      return LogLevel::error;
    case 'F':
    case 'f':
      return LogLevel::fatal;
    case 'S':
    case 's':
      return LogLevel::silent;
    default:
      return std::nullopt;
  }
}

char log_level_letter(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::verbose:
      return 'V';
    case LogLevel::debug:
      return 'D';
    case LogLevel::info:
      return 'I';
    case LogLevel::warn:
      return 'W';
    case LogLevel::error:
      return 'E';
    case LogLevel::fatal:
      return 'F';
    case LogLevel::silent:
      return 'S';
    case LogLevel::unknown:
      break;
  }
  return '?';
}

LogFilter LogFilter::parse(const std::vector<std::string>& specs, bool silent_others) {
  LogFilter filter;
  if (silent_others) filter.default_level = LogLevel::silent;
  for (const std::string& spec : specs) {
    const std::size_t colon = spec.rfind(':');
    std::string tag = colon == std::string::npos ? spec : spec.substr(0, colon);
    std::optional<LogLevel> level = LogLevel::verbose;
    if (colon != std::string::npos) {
      level = spec.size() == colon + 2 ? log_level_from_letter(spec[colon + 1]) : std::nullopt;
    }
    if (tag.empty() || !level) {
      throw Error(errc::invalid_argument, "'" + spec +
                                              "' is not a logcat filter: write TAG:LEVEL with "
                                              "LEVEL one of V D I W E F S (*:E for all tags)");
    }
    if (tag == "*") {
      filter.default_level = *level;
    } else {
      filter.tags[std::move(tag)] = *level;
    }
  }
  return filter;
}

bool LogFilter::passes(const LogRecord& record) const noexcept {
  const auto it = tags.find(record.tag);
  const LogLevel floor = it == tags.end() ? default_level : it->second;
  return static_cast<std::uint8_t>(record.level) >= static_cast<std::uint8_t>(floor) &&
         floor != LogLevel::silent;
}

std::vector<std::string> LogFilter::specs() const {
  std::vector<std::string> out;
  for (const auto& [tag, level] : tags) out.push_back(tag + ":" + log_level_letter(level));
  out.push_back(std::string("*:") + log_level_letter(default_level));
  return out;
}

void LogcatDecoder::feed(std::span<const std::uint8_t> bytes, std::vector<LogRecord>& out,
                         std::error_code& error) {
  error.clear();
  if (failed_) {
    error = make_error_code(errc::parse_error);
    return;
  }
  pending_.insert(pending_.end(), bytes.begin(), bytes.end());
  std::size_t at = 0;
  while (pending_.size() - at >= 4) {
    const std::uint8_t* p = pending_.data() + at;
    const std::size_t length = protocol::load_le16(p);
    const std::size_t header =
        protocol::load_le16(p + 2) == 0 ? kHeaderV1 : protocol::load_le16(p + 2);
    if (header < kHeaderV1 || header > kMaxHeader || length > kMaxPayload) {
      failed_ = true;
      error = make_error_code(errc::parse_error);
      return;
    }
    if (pending_.size() - at < header + length) break;
    const std::uint32_t buffer = header >= 24 ? protocol::load_le32(p + 20) : 0;
    const bool binary = header >= 28 && (buffer == kEventsBuffer || buffer == kStatsBuffer ||
                                         buffer == kSecurityBuffer);
    if (!binary && length > 0) {
      LogRecord record;
      record.pid = static_cast<std::int32_t>(protocol::load_le32(p + 4));
      record.tid = protocol::load_le32(p + 8);
      record.time = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::seconds(protocol::load_le32(p + 12)) +
              std::chrono::nanoseconds(protocol::load_le32(p + 16))));
      record.buffer = buffer;
      record.uid = header >= 28 ? protocol::load_le32(p + 24) : 0;
      const auto* payload = reinterpret_cast<const char*>(p + header);
      record.level = static_cast<LogLevel>(static_cast<std::uint8_t>(payload[0]));
      const std::string_view rest(payload + 1, length - 1);
      const std::size_t nul = rest.find('\0');
      record.tag = std::string(rest.substr(0, nul));
      std::string_view message =
          nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
      while (!message.empty() && message.back() == '\0') message.remove_suffix(1);
      record.message = std::string(message);
      out.push_back(std::move(record));
    }
    at += header + length;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(at));
}

struct Logcat::State {
  Stream stream;
  LogFilter filter;
  LogRecordHandler on_record;
  std::size_t capacity = 0;
  std::size_t dump_limit = 0;  // bytes a dump may send (0: following, no end to wait for)
  std::string dump_too_long;   // the detail of passing dump_limit
  std::thread reader;

  detail::Mutex mutex;
  std::condition_variable ended_changed;
  std::deque<LogRecord> ring ADBWIRE_GUARDED_BY(mutex);
  std::uint64_t received ADBWIRE_GUARDED_BY(mutex) = 0;
  bool ended ADBWIRE_GUARDED_BY(mutex) = false;
  bool stopping ADBWIRE_GUARDED_BY(mutex) = false;
  std::error_code error ADBWIRE_GUARDED_BY(mutex);
  std::string error_detail ADBWIRE_GUARDED_BY(mutex);

  void finish(std::error_code why, std::string detail = {}) {
    {
      detail::MutexLock lock(mutex);
      if (!stopping) {
        error = why;
        error_detail = why && detail.empty() ? why.message() : std::move(detail);
      }
      ended = true;
    }
    ended_changed.notify_all();
  }

  // The first bytes of a stream whose start is not a record: the device's logcat said why it
  // did not run. Reads on briefly for the rest of its words, then ends the stream with them.
  void finish_with_words(std::string words) {
    std::vector<std::uint8_t> buffer(kDeviceTextLimit);
    const Deadline until = deadline_after(kDeviceTextWait);
    while (words.size() < kDeviceTextLimit) {
      std::error_code error;
      const std::size_t n = stream.read_some(
          std::span<std::uint8_t>(buffer.data(), kDeviceTextLimit - words.size()), until, error);
      if (error || n == 0) break;
      words.append(reinterpret_cast<const char*>(buffer.data()), n);
    }
    stream.close();
    finish(make_error_code(errc::command_failed), device_words(words));
  }

  void run() {
    LogcatDecoder decoder;
    std::vector<std::uint8_t> buffer(kReadSize);
    std::vector<LogRecord> records;
    std::size_t read = 0;
    bool decoded = false;  // a whole record came: the stream is logcat -B output
    std::string head;      // what came before that, bounded
    for (;;) {
      std::error_code error;
      const std::size_t n = stream.read_some(buffer, kNoDeadline, error);
      if (!error && n == 0 && !decoded && decoder.buffered() > 0) {
        finish(make_error_code(errc::command_failed), device_words(head));
        return;
      }
      if (error || n == 0) {
        finish(error, error ? last_error_detail() : std::string());
        return;
      }
      read += n;
      if (!decoded && head.size() < kDeviceTextLimit) {
        head.append(reinterpret_cast<const char*>(buffer.data()),
                    std::min(n, kDeviceTextLimit - head.size()));
      }
      if (dump_limit != 0 && read > dump_limit) {
        stream.close();
        finish(make_error_code(errc::limit_exceeded), dump_too_long);
        return;
      }
      records.clear();
      decoder.feed({buffer.data(), n}, records, error);
      if (error && !decoded) {
        finish_with_words(std::move(head));
        return;
      }
      if (read > decoder.buffered()) decoded = true;
      for (LogRecord& record : records) {
        if (!filter.passes(record)) continue;
        bool stop_now = false;
        {
          detail::MutexLock lock(mutex);
          stop_now = stopping;
          if (!stop_now) {
            ++received;
            if (capacity > 0) {
              ring.push_back(record);
              if (ring.size() > capacity) ring.pop_front();
            }
          }
        }
        if (stop_now) {
          finish({});
          return;
        }
        if (!on_record) continue;
        try {
          on_record(record);
        } catch (const Error& e) {
          stream.close();
          finish(e.code(), e.detail());
          return;
        } catch (...) {
          stream.close();
          finish(make_error_code(errc::cancelled));
          return;
        }
      }
      if (error) {
        stream.close();
        finish(error, "the device's logcat -B output is not binary log records");
        return;
      }
    }
  }
};

Logcat::Logcat() noexcept = default;
Logcat::Logcat(Logcat&&) noexcept = default;
Logcat& Logcat::operator=(Logcat&& other) noexcept {
  if (this != &other) {
    stop();
    state_ = std::move(other.state_);
  }
  return *this;
}
Logcat::~Logcat() { stop(); }

std::shared_ptr<Logcat::State> Logcat::start_state(Device& device, const LogcatOptions& options,
                                                   LogRecordHandler on_record, Deadline deadline,
                                                   detail::Failure& failure) {
  deadline = device.resolve(deadline);
  std::string command = "logcat -B";
  if (options.dump) command += " -d";
  if (options.tail) command += " -T " + std::to_string(*options.tail);
  for (const std::string& arg : options.device_args) command += " " + detail::shell_quote(arg);
  for (const std::string& spec : options.filter.specs()) {
    if (!tag_fits_command_line(spec.substr(0, spec.rfind(':')))) {
      failure.set(errc::invalid_argument,
                  "the logcat filter tag in '" + spec +
                      "' cannot be passed on a command line (letters, digits and ._-/@ only)");
      return nullptr;
    }
    command += " " + detail::shell_quote(spec);
  }
  std::error_code error;
  if (options.clear) {
    const ShellResult cleared = device.shell("logcat -c", deadline, error);
    if (error) {
      failure = detail::reported(error);
      return nullptr;
    }
    if (cleared.exit_code > 0) {
      failure.set(errc::command_failed,
                  "logcat -c failed on " + device.serial() + ": " + cleared.out + cleared.err);
      return nullptr;
    }
  }
  auto state = std::make_shared<Logcat::State>();
  state->stream = device.open("exec:" + command, deadline, error);
  if (error) {
    failure = detail::reported(error);
    return nullptr;
  }
  state->filter = options.filter;
  state->on_record = std::move(on_record);
  state->capacity = options.ring_capacity;
  if (options.dump) {
    state->dump_limit = device.output_limits().logcat;
    state->dump_too_long = detail::over_limit_detail("`" + command + "`", device.output_limits(),
                                                     &OutputLimits::logcat);
  }
  state->reader = std::thread([raw = state.get()] { raw->run(); });
  return state;
}

Logcat Logcat::start(Device& device, const LogcatOptions& options, LogRecordHandler on_record,
                     Deadline deadline) {
  Logcat logcat;
  logcat.state_ = detail::or_throw([&](detail::Failure& f) {
    return start_state(device, options, std::move(on_record), deadline, f);
  });
  return logcat;
}

Logcat Logcat::start(Device& device, const LogcatOptions& options, LogRecordHandler on_record,
                     Deadline deadline, std::error_code& error) {
  Logcat logcat;
  logcat.state_ = detail::or_code(error, [&](detail::Failure& f) {
    return start_state(device, options, std::move(on_record), deadline, f);
  });
  return logcat;
}

std::vector<LogRecord> Logcat::recent() const {
  if (!state_) return {};
  detail::MutexLock lock(state_->mutex);
  return {state_->ring.begin(), state_->ring.end()};
}

std::uint64_t Logcat::received() const {
  if (!state_) return 0;
  detail::MutexLock lock(state_->mutex);
  return state_->received;
}

bool Logcat::running() const {
  if (!state_) return false;
  detail::MutexLock lock(state_->mutex);
  return !state_->ended && !state_->stopping;
}

bool Logcat::wait(Deadline deadline) const {
  if (!state_) return true;
  detail::MutexLock lock(state_->mutex);
  return detail::wait_until(state_->ended_changed, lock, deadline,
                            [&]() ADBWIRE_REQUIRES(state_->mutex) { return state_->ended; });
}

std::error_code Logcat::error() const {
  if (!state_) return {};
  detail::MutexLock lock(state_->mutex);
  return state_->error;
}

std::string Logcat::error_detail() const {
  if (!state_) return {};
  detail::MutexLock lock(state_->mutex);
  return state_->error_detail;
}

void Logcat::stop() noexcept {
  if (!state_) return;
  {
    detail::MutexLock lock(state_->mutex);
    state_->stopping = true;
  }
  state_->stream.close();
  if (state_->reader.joinable()) state_->reader.join();
}

}  // namespace adbwire
