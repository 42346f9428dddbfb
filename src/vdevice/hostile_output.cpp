#include "vdevice/hostile_output.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "adbwire/protocol/bytes.hpp"

namespace adbwire::vdevice {
namespace {

using Argv = std::vector<std::string>;

bool has(const Argv& argv, std::string_view word) {
  return std::find(argv.begin() + 1, argv.end(), word) != argv.end();
}

// The commands whose whole output a host gathers (getprops, list_packages, foreground_activity,
// Page::snapshot, the logs verb).
enum class Collected { none, dump, properties, dumpsys, packages, log_records, log_text };

Collected collected(const Argv& argv) {
  const std::string& name = argv[0];
  if (name == "uiautomator" && has(argv, "dump")) return Collected::dump;
  if (name == "getprop") return Collected::properties;
  if (name == "dumpsys") return Collected::dumpsys;
  if ((name == "pm" && argv.size() > 1 && argv[1] == "list") ||
      (name == "cmd" && argv.size() > 2 && argv[1] == "package" && argv[2] == "list")) {
    return Collected::packages;
  }
  if (name == "logcat" && has(argv, "-d"))
    return has(argv, "-B") ? Collected::log_records : Collected::log_text;
  return Collected::none;
}

// One binary log record (logger_entry v4, as `logcat -B` writes it).
void append_record(std::vector<std::uint8_t>& out, std::uint64_t n) {
  const std::string message = "endless log line " + std::to_string(n);
  const std::string_view tag = "Endless";
  const auto payload = static_cast<std::uint16_t>(1 + tag.size() + 1 + message.size() + 1);
  protocol::append_le16(out, payload);
  protocol::append_le16(out, 28);
  protocol::append_le32(out, 1000);                                               // pid
  protocol::append_le32(out, 1000);                                               // tid
  protocol::append_le32(out, static_cast<std::uint32_t>(1700000000 + n / 1000));  // sec
  protocol::append_le32(out, 0);                                                  // nsec
  protocol::append_le32(out, 0);                                                  // log id: main
  protocol::append_le32(out, 1000);                                               // uid
  out.push_back(4);                                                               // info
  out.insert(out.end(), tag.begin(), tag.end());
  out.push_back(0);
  out.insert(out.end(), message.begin(), message.end());
  out.push_back(0);
}

// Never ends: a piece of plausible output each step, as much as the stream takes.
class EndlessJob final : public Job {
 public:
  explicit EndlessJob(Collected kind) : kind_(kind) {}

  JobStep step(JobIo& io) override {
    while (io.room() > 0) {
      if (pending_.empty()) fill(pending_.buffer());
      if (!pending_.flush(io)) break;
    }
    return JobStep::more();
  }

 private:
  void fill(std::vector<std::uint8_t>& piece) {
    std::string text;
    if (kind_ == Collected::dump && line_ == 0) {
      text = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">";
    }
    while (text.size() < JobIo::kChunk && piece.size() < JobIo::kChunk) {
      const std::string n = std::to_string(line_++);
      switch (kind_) {
        case Collected::dump:
          text += "<node index=\"" + n +
                  "\" text=\"endless\" class=\"android.widget.TextView\" "
                  "bounds=\"[0,0][10,10]\" />";
          break;
        case Collected::properties:
          text += "[ro.endless." + n + "]: [value]\n";
          break;
        case Collected::dumpsys:
          text += "  endless report line " + n + "\n";
          break;
        case Collected::packages:
          text += "package:com.endless.app" + n + "\n";
          break;
        case Collected::log_records:
          append_record(piece, line_);
          break;
        case Collected::log_text:
          text += "01-01 00:00:00.000  1000  1000 I Endless: endless log line " + n + "\n";
          break;
        case Collected::none:
          return;
      }
    }
    piece.insert(piece.end(), text.begin(), text.end());
  }

  Collected kind_;
  PendingOutput pending_;
  std::uint64_t line_ = 0;
};

// Answers with device text that holds kHostileText, in the shape of the real tool's output.
class EscapesJob final : public Job {
 public:
  explicit EscapesJob(Argv argv) : argv_(std::move(argv)) {}

  JobStep step(JobIo& io) override {
    const std::string evil(kHostileText);
    const std::string& name = argv_[0];
    if (name == "getprop" && argv_.size() == 1) {
      std::string all;
      for (const auto& [key, value] : io.device().properties())
        all += "[" + key + "]: [" + value + "]\n";
      io.out(all + "[ro.evil.title]: [" + evil + "]\n");
    } else if (name == "getprop") {
      io.out(evil + "\n");
    } else if (name == "dumpsys") {
      io.out(
          "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
          "Display #0 (activities from top to bottom):\n"
          "    topResumedActivity=ActivityRecord{7f1c2a9 u0 com.evil" +
          evil + "/.Main" + evil + "} t12}\n");
    } else if (name == "pm" || name == "cmd") {
      io.out("package:com.example.shop\npackage:com.evil" + evil + "\n");
    } else {
      io.out(evil + "\n");  // settings get
    }
    return JobStep::done(0);
  }

 private:
  Argv argv_;
};

}  // namespace

std::unique_ptr<Job> hostile_job(HostileOutput mode, const std::vector<std::string>& argv) {
  if (mode == HostileOutput::none || argv.empty()) return nullptr;
  const Collected kind = collected(argv);
  if (mode == HostileOutput::endless) {
    return kind == Collected::none ? nullptr : std::make_unique<EndlessJob>(kind);
  }
  if (mode != HostileOutput::escapes) return nullptr;  // the range faults are dd's own
  const bool escaped = kind == Collected::properties || kind == Collected::packages ||
                       (kind == Collected::dumpsys && argv.size() > 1 && argv[1] == "activity") ||
                       (argv[0] == "settings" && argv.size() > 1 && argv[1] == "get");
  return escaped ? std::make_unique<EscapesJob>(argv) : nullptr;
}

}  // namespace adbwire::vdevice
