#include "vdevice/logcat_commands.hpp"

#include <chrono>
#include <ctime>
#include <map>
#include <optional>

#include "adbwire/protocol/bytes.hpp"
#include "base/number.hpp"
#include "vdevice/device_state_store.hpp"

namespace adbwire::vdevice {
namespace {

using Argv = std::vector<std::string>;
using namespace std::chrono_literals;

// How often a following logcat looks for new records.
constexpr auto kPollInterval = 50ms;
// liblog's header sizes: v4 is what logd sends today.
constexpr std::uint16_t kHeaderV4 = 28;

// android_LogPriority of a level letter; nullopt for anything else.
std::optional<std::uint8_t> priority_of(char letter) {
  switch (letter) {
    case 'V':
    case 'v':
      return 2;
    case 'D':
    case 'd':
      return 3;
    case 'I':
    case 'i':
      return 4;
    case 'W':
    case 'w':
      return 5;
    case 'E':
    case 'e':
      return 6;
    case 'F':
    case 'f':
      return 7;
    case 'S':
    case 's':
      return 8;  // silent: above every real priority
    default:
      return std::nullopt;
  }
}

char letter_of(std::uint8_t priority) {
  static constexpr char kLetters[] = "??VDIWEFS";
  return priority < sizeof kLetters - 1 ? kLetters[priority] : '?';
}

class LogcatJob final : public Job {
 public:
  LogcatJob(bool binary, bool dump, std::optional<std::size_t> tail,
            std::map<std::string, std::uint8_t> levels, std::uint8_t default_level)
      : binary_(binary),
        dump_(dump),
        tail_(tail),
        levels_(std::move(levels)),
        default_level_(default_level) {}

  JobStep step(JobIo& io) override {
    DeviceStateStore& state = io.device().state();
    if (!started_) {
      started_ = true;
      const std::uint64_t end = state.log_end();
      next_ = tail_ ? (end > *tail_ ? end - *tail_ : 0) : 0;
    }
    if (!pending_.flush(io)) return JobStep::more();
    while (io.room() > 0) {
      std::uint64_t after = 0;
      const auto records = state.logs_from(next_, 64, after);
      next_ = after;
      if (records.empty()) {
        if (dump_) return JobStep::done(0);
        return JobStep::sleep(std::chrono::duration_cast<std::chrono::milliseconds>(kPollInterval));
      }
      for (const LogRecord& record : records) {
        if (passes(record)) append(record, pending_.buffer());
      }
      if (!pending_.flush(io)) return JobStep::more();
    }
    return JobStep::more();
  }

 private:
  bool passes(const LogRecord& record) const {
    const auto it = levels_.find(record.tag);
    return record.priority >= (it == levels_.end() ? default_level_ : it->second);
  }

  void append(const LogRecord& record, std::vector<std::uint8_t>& out) const {
    if (binary_) {
      std::size_t length = 1 + record.tag.size() + 1 + record.message.size() + 1;
      std::string message = record.message;
      if (length > 4068) {  // LOGGER_ENTRY_MAX_PAYLOAD: liblog truncates longer messages
        message.resize(message.size() - (length - 4068));
        length = 4068;
      }
      protocol::append_le16(out, static_cast<std::uint16_t>(length));
      protocol::append_le16(out, kHeaderV4);
      protocol::append_le32(out, static_cast<std::uint32_t>(record.pid));
      protocol::append_le32(out, record.tid);
      protocol::append_le32(out, record.sec);
      protocol::append_le32(out, record.nsec);
      protocol::append_le32(out, 0);     // lid: main
      protocol::append_le32(out, 2000);  // uid: shell
      out.push_back(record.priority);
      out.insert(out.end(), record.tag.begin(), record.tag.end());
      out.push_back(0);
      out.insert(out.end(), message.begin(), message.end());
      out.push_back(0);
      return;
    }
    const std::time_t seconds = record.sec;
    std::tm local{};
    localtime_r(&seconds, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%m-%d %H:%M:%S", &local);
    char prefix[96];
    const int n =
        std::snprintf(prefix, sizeof prefix, "%s.%03u %5d %5u %c ", stamp, record.nsec / 1000000u,
                      record.pid, record.tid, letter_of(record.priority));
    std::string line(prefix, static_cast<std::size_t>(n));
    line += record.tag;
    if (record.tag.size() < 8) line.append(8 - record.tag.size(), ' ');
    line += ": " + record.message + "\n";
    out.insert(out.end(), line.begin(), line.end());
  }

  bool binary_;
  bool dump_;
  std::optional<std::size_t> tail_;
  std::map<std::string, std::uint8_t> levels_;
  std::uint8_t default_level_;
  bool started_ = false;
  std::uint64_t next_ = 0;
  PendingOutput pending_;
};

}  // namespace

std::unique_ptr<Job> make_logcat(Argv argv) {
  bool binary = false;
  bool dump = false;
  std::optional<std::size_t> tail;
  std::map<std::string, std::uint8_t> levels;
  std::uint8_t default_level = 2;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "-B" || arg == "--binary") {
      binary = true;
    } else if (arg == "-d") {
      dump = true;
    } else if (arg == "-c") {
      class Clear final : public Job {
        JobStep step(JobIo& io) override {
          io.device().state().clear_logs();
          return JobStep::done(0);
        }
      };
      return std::make_unique<Clear>();
    } else if (arg == "-s") {
      default_level = 8;
    } else if ((arg == "-v" || arg == "-b") && i + 1 < argv.size()) {
      ++i;  // one format (threadtime) and one buffer (main) are all the virtual device has
    } else if ((arg == "-t" || arg == "-T") && i + 1 < argv.size()) {
      const std::string& value = argv[++i];
      const std::optional<std::size_t> count = detail::parse_number<std::size_t>(value);
      if (!count) {
        return error_job(
            "logcat: -t/-T takes a line count on the virtual device, not '" + value + "'\n", 1);
      }
      tail = *count;
      if (arg == "-t") dump = true;
    } else if (!arg.starts_with('-')) {
      const std::size_t colon = arg.rfind(':');
      const std::string tag = colon == std::string::npos ? arg : arg.substr(0, colon);
      const auto level = colon == std::string::npos || colon + 2 != arg.size()
                             ? std::optional<std::uint8_t>(2)
                             : priority_of(arg[colon + 1]);
      if (!level) return error_job("Invalid filter expression '" + arg + "'\n", 1);
      if (tag == "*") {
        default_level = *level;
      } else {
        levels[tag] = *level;
      }
    } else {
      return error_job("logcat: unknown option " + arg + " on the adbwire virtual device\n", 1);
    }
  }
  return std::make_unique<LogcatJob>(binary, dump, tail, std::move(levels), default_level);
}

}  // namespace adbwire::vdevice
