#include "vdevice/dumper_app_process.hpp"

#include <array>
#include <filesystem>

#include "adbwire/protocol/bytes.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/screen_graph.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

constexpr std::string_view kDumperClass = "com.adbwire.Dumper";
constexpr std::string_view kClassPathOption = "-Djava.class.path=";
constexpr std::string_view kNiceNameOption = "--nice-name=";
constexpr std::uint8_t kPing = 'P';
constexpr std::uint8_t kDump = 'D';
constexpr std::uint8_t kSetClip = 'C';
constexpr std::uint8_t kGetClip = 'G';
constexpr std::size_t kDumpRequestSize = 9;  // 'D', u32 quiet ms, u32 max ms
constexpr std::size_t kClipHeaderSize = 5;   // 'C', u32 length, then the text
constexpr std::uint8_t kOk = 0;
constexpr std::uint8_t kFailed = 1;
constexpr std::string_view kAlreadyRegistered =
    "java.lang.IllegalStateException: UiAutomationService "
    "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@5d1a6c2 already "
    "registered!";

void reply(JobIo& io, std::uint8_t status, std::string_view payload) {
  std::array<std::uint8_t, 5> header{status};
  protocol::store_be32(header.data() + 1, static_cast<std::uint32_t>(payload.size()));
  io.out(header);
  io.out(payload);
}

// A dump answered as the real dumper does: uiautomator's failure texts for the screen's
// UiDumpFault, the XML otherwise. False when the fault kills the process.
bool answer_dump(JobIo& io) {
  switch (io.device().screens().take_fault()) {
    case UiDumpFault::idle_state:
      reply(io, kFailed, "ERROR: could not get idle state.");
      return true;
    case UiDumpFault::null_root:
      reply(io, kFailed, "ERROR: null root node returned by UiTestAutomationBridge.");
      return true;
    case UiDumpFault::already_registered:
      reply(io, kFailed, kAlreadyRegistered);
      return true;
    case UiDumpFault::killed:
      return false;
    case UiDumpFault::empty_file:
      reply(io, kOk, "");
      return true;
    case UiDumpFault::none:
      break;
  }
  reply(io, kOk, io.device().screens().dump());
  return true;
}

class DumperJob final : public Job {
 public:
  explicit DumperJob(std::vector<std::string> argv) : argv_(std::move(argv)) {}

  // The stream is gone. A dumper that answers exits with its stdin; a hung one (never_answer)
  // keeps UiAutomation until something kills it, as a process stuck in a binder call would.
  ~DumperJob() override {
    if (device_ != nullptr && fault_ != DumperFault::never_answer) device_->remove_process(name_);
  }

  JobStep step(JobIo& io) override {
    if (!started_) {
      started_ = true;
      io.device().log_event(join_argv(argv_));
      fault_ = io.device().dumper_fault();
      fault_after_ = io.device().dumper_fault_after();
      if (const int code = check_start(io); code != 0) return JobStep::done(code);
      if (fault_ == DumperFault::crash_at_start) {
        io.err(
            "java.lang.NoSuchMethodError: No static method getRealDisplay(I)Landroid/view/Display; "
            "in class "
            "Landroid/hardware/display/DisplayManagerGlobal;\n\tat "
            "com.adbwire.Dumper.main(Dumper.java)\n");
        return JobStep::done(1);
      }
      if (fault_ == DumperFault::already_registered || io.device().ui_automation_held()) {
        reply(io, kFailed, kAlreadyRegistered);
        return JobStep::done(0);
      }
      device_ = &io.device();
      device_->add_process(name_);
    }
    std::array<std::uint8_t, 4096> chunk{};
    while (const std::size_t n = io.read_stdin(chunk))
      pending_.insert(pending_.end(), chunk.begin(), chunk.begin() + n);
    while (!pending_.empty()) {
      const std::uint8_t op = pending_.front();
      std::size_t size = op == kDump ? kDumpRequestSize : 1;
      if (op == kSetClip) {
        if (pending_.size() < kClipHeaderSize) break;
        size = kClipHeaderSize + std::size_t{protocol::load_be32(pending_.data() + 1)};
      }
      if (pending_.size() < size) break;
      const std::string clip(
          pending_.begin() + static_cast<std::ptrdiff_t>(op == kSetClip ? kClipHeaderSize : size),
          pending_.begin() + static_cast<std::ptrdiff_t>(size));
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(size));
      if (fault_ == DumperFault::never_answer) continue;
      if (fault_ == DumperFault::garbage) {
        io.out(
            "\x7f"
            "ELF\x02\x01 this is no reply frame");
        continue;
      }
      if (op == kPing) {
        reply(io, kOk, "adbwire-dumper 2");
      } else if (op == kSetClip) {
        // IClipboard.setPrimaryClip as the real dumper calls it.
        io.device().screens().set_clipboard(clip);
        reply(io, kOk, "");
      } else if (op == kGetClip) {
        reply(io, kOk, io.device().screens().clipboard());
      } else if (op == kDump) {
        if (fault_ == DumperFault::die_after && dumps_ == fault_after_) return JobStep::done(1);
        ++dumps_;
        if (!answer_dump(io)) return JobStep::done(137);
      } else {
        reply(io, kFailed, "adbwire-dumper: unknown request");
      }
    }
    return io.stdin_eof() ? JobStep::done(0) : JobStep::wait_input();
  }

 private:
  // What app_process does before main(): takes its name (--nice-name, after the parent
  // folder) and finds the class on the class path. 0 when found.
  int check_start(JobIo& io) {
    std::string class_path;
    std::string main_class;
    name_ = "app_process";
    for (std::size_t i = 1; i < argv_.size(); ++i) {
      if (argv_[i].starts_with(kClassPathOption)) {
        class_path = argv_[i].substr(kClassPathOption.size());
      } else if (argv_[i].starts_with(kNiceNameOption)) {
        name_ = argv_[i].substr(kNiceNameOption.size());
      } else if (!argv_[i].starts_with('-') && !argv_[i].starts_with('/')) {
        main_class = argv_[i];
        break;
      }
    }
    const std::string dex = class_path.substr(0, class_path.find(':'));
    std::error_code error;
    const std::filesystem::path host =
        dex.empty() ? std::filesystem::path() : io.device().resolve(dex, error);
    if (main_class != kDumperClass || dex.empty() || error ||
        !std::filesystem::is_regular_file(host)) {
      io.err("Error: Could not find class '" + main_class + "' (class path '" + class_path +
             "')\n");
      return 1;
    }
    return 0;
  }

  std::vector<std::string> argv_;
  std::string name_;                 // the process name, what pkill -f matches
  DeviceContext* device_ = nullptr;  // set once it holds UiAutomation
  bool started_ = false;
  DumperFault fault_ = DumperFault::none;
  std::uint32_t fault_after_ = 0;
  std::uint32_t dumps_ = 0;
  std::vector<std::uint8_t> pending_;
};

}  // namespace

std::unique_ptr<Job> make_app_process(std::vector<std::string> argv) {
  return std::make_unique<DumperJob>(std::move(argv));
}

}  // namespace adbwire::vdevice
