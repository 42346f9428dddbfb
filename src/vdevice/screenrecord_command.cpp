// The recording a test can check byte for byte: an ISO BMFF file of three boxes, `ftyp`
// (mp42), `mdat` holding one 1024-byte frame per 100 ms recorded (frame i filled with the byte
// i % 251, at least one frame), and `moov` (a `free` box inside). Real screenrecord writes
// `moov` when it stops on its time limit or on SIGINT; so does this one, whatever the signal.
#include "vdevice/screenrecord_command.hpp"

#include <chrono>
#include <fstream>
#include <optional>
#include <string_view>

#include "adbwire/protocol/bytes.hpp"
#include "base/number.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr std::size_t kFrameBytes = 1024;
constexpr auto kFrameTime = 100ms;
constexpr auto kPoll = 20ms;

void append_box(std::vector<std::uint8_t>& out, std::string_view type, std::size_t payload) {
  protocol::append_be32(out, static_cast<std::uint32_t>(8 + payload));
  out.insert(out.end(), type.begin(), type.end());
}

std::vector<std::uint8_t> movie(std::size_t frames) {
  std::vector<std::uint8_t> out;
  append_box(out, "ftyp", 16);
  for (const std::string_view word : {"mp42", "\0\0\0\0", "mp42", "isom"})
    out.insert(out.end(), word.begin(), word.begin() + 4);
  append_box(out, "mdat", frames * kFrameBytes);
  for (std::size_t i = 0; i < frames; ++i)
    out.insert(out.end(), kFrameBytes, static_cast<std::uint8_t>(i % 251));
  append_box(out, "moov", 8);
  append_box(out, "free", 0);
  return out;
}

class ScreenRecordJob final : public Job {
 public:
  explicit ScreenRecordJob(std::vector<std::string> argv) : argv_(std::move(argv)) {}

  JobStep step(JobIo& io) override {
    if (!started_) return start(io);
    const bool interrupted = !io.device().has_process(name_);
    if (!interrupted && Clock::now() - began_ < limit_) return JobStep::sleep(kPoll);
    if (!interrupted) io.device().remove_process(name_);
    const auto recorded = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::min<Clock::duration>(Clock::now() - began_, limit_));
    const std::size_t frames =
        std::max<std::size_t>(1, static_cast<std::size_t>(recorded / kFrameTime));
    const std::vector<std::uint8_t> bytes = movie(frames);
    std::ofstream file(file_, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    if (!file) {
      io.err("screenrecord: cannot write " + path_ + "\n");
      return JobStep::done(1);
    }
    return JobStep::done(0);
  }

 private:
  JobStep start(JobIo& io) {
    started_ = true;
    for (std::size_t i = 1; i < argv_.size(); ++i) {
      const std::string& arg = argv_[i];
      if ((arg == "--time-limit" || arg == "--bit-rate" || arg == "--size") &&
          i + 1 < argv_.size()) {
        const std::string& value = argv_[++i];
        if (arg == "--time-limit") {
          const std::optional<unsigned> seconds = detail::parse_number<unsigned>(value);
          if (!seconds || *seconds == 0 || *seconds > 180) {
            io.err("Time limit " + value + " out of range [1,180]\n");
            return JobStep::done(2);
          }
          limit_ = std::chrono::seconds(*seconds);
        }
      } else if (arg.starts_with("-")) {
        io.err("Unrecognized option: " + arg + "\n");
        return JobStep::done(2);
      } else {
        path_ = arg;
      }
    }
    if (path_.empty()) {
      io.err("Must specify output file (see --help).\n");
      return JobStep::done(2);
    }
    std::error_code error;
    file_ = io.device().resolve(path_, error);
    if (error) {
      io.err("Unable to open '" + path_ + "': " + error.message() + "\n");
      return JobStep::done(1);
    }
    name_ = join_argv(argv_);
    io.device().log_event(name_);
    io.device().add_process(name_, false);
    began_ = Clock::now();
    return JobStep::sleep(kPoll);
  }

  std::vector<std::string> argv_;
  std::string path_;
  std::filesystem::path file_;
  std::string name_;  // the command line, what pkill -f matches
  bool started_ = false;
  Clock::time_point began_;
  Clock::duration limit_ = std::chrono::seconds(180);
};

}  // namespace

std::unique_ptr<Job> make_screenrecord(std::vector<std::string> argv) {
  return std::make_unique<ScreenRecordJob>(std::move(argv));
}

}  // namespace adbwire::vdevice
