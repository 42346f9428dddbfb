#include "vdevice/dumper_app_process.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "adbwire/protocol/bytes.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/install_commands.hpp"
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
constexpr std::uint8_t kLabels = 'L';
constexpr std::uint8_t kGesture = 'M';
constexpr std::size_t kDumpRequestSize = 9;    // 'D', u32 quiet ms, u32 max ms
constexpr std::size_t kClipHeaderSize = 5;     // 'C', u32 length, then the text
constexpr std::size_t kGestureHeaderSize = 5;  // 'M', u32 count, then count big-endian i32
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

// MotionEvent actions, and the pointer index in bits 8-15 of POINTER_DOWN/UP.
constexpr std::int32_t kActionDown = 0;
constexpr std::int32_t kActionUp = 1;
constexpr std::int32_t kActionMove = 2;
constexpr std::int32_t kActionPointerDown = 5;
constexpr std::int32_t kActionPointerUp = 6;

struct Finger {
  std::int32_t from_x = 0, from_y = 0, to_x = 0, to_y = 0;
};

// A gesture as Android's input dispatcher checks an injected stream: DOWN with one pointer
// first, each POINTER_DOWN adding the next pointer index, moves holding every pointer down,
// each POINTER_UP lifting the last, UP with one pointer last, times never going back. The index
// of the first event that breaks this (it is refused, as injectInputEvent answers false), or
// -1; the fingers' first and last points and the last time when it holds.
int check_gesture(const std::vector<std::int32_t>& ints, std::vector<Finger>& fingers,
                  std::int32_t& length) {
  if (ints.empty()) return 0;
  const std::int32_t count = ints[0];
  std::size_t at = 1;
  std::size_t down = 0;  // pointers down now
  std::int32_t last_time = 0;
  for (std::int32_t event = 0; event < count; ++event) {
    if (at + 3 > ints.size()) return event;
    const std::int32_t action = ints[at] & 0xff;
    const auto index = static_cast<std::size_t>((ints[at] >> 8) & 0xff);
    const std::int32_t time = ints[at + 1];
    const std::int32_t k = ints[at + 2];
    at += 3;
    if (k < 1 || k > 10 || at + 2 * static_cast<std::size_t>(k) > ints.size()) return event;
    const auto pointers = static_cast<std::size_t>(k);
    if (time < last_time) return event;
    last_time = time;
    bool ok = false;
    switch (action) {
      case kActionDown:
        ok = event == 0 && pointers == 1 && index == 0;
        break;
      case kActionPointerDown:
        ok = down > 0 && index == down && pointers == down + 1;
        break;
      case kActionMove:
        ok = down > 0 && pointers == down;
        break;
      case kActionPointerUp:
        ok = down > 1 && index == down - 1 && pointers == down;
        break;
      case kActionUp:
        ok = down == 1 && pointers == 1 && event == count - 1;
        break;
      default:
        break;
    }
    if (!ok) return event;
    if (action == kActionDown || action == kActionPointerDown) fingers.resize(pointers);
    for (std::size_t i = 0; i < pointers; ++i) {
      const std::int32_t x = ints[at + 2 * i];
      const std::int32_t y = ints[at + 2 * i + 1];
      if (action == kActionDown || ((action == kActionPointerDown) && i + 1 == pointers))
        fingers[i] = {x, y, x, y};
      fingers[i].to_x = x;
      fingers[i].to_y = y;
    }
    at += 2 * pointers;
    if (action == kActionDown || action == kActionPointerDown) down = pointers;
    if (action == kActionPointerUp || action == kActionUp) down = pointers - 1;
  }
  // An empty gesture injects nothing and is answered ok (the host asks one to learn whether
  // the dumper can inject at all).
  if (count < 0) return 0;
  if (down != 0) return count;
  length = last_time;
  return -1;
}

// The device's log line for a gesture ("dumper touch 2 fingers 300 ms: 440,1200 -> 140,1200;
// 640,1200 -> 940,1200"), and what it does to the screen: one finger that did not move is a
// tap, as `input tap` is.
void play_gesture(JobIo& io, const std::vector<Finger>& fingers, std::int32_t length) {
  std::string line = "dumper touch " + std::to_string(fingers.size()) +
                     (fingers.size() == 1 ? " finger " : " fingers ") + std::to_string(length) +
                     " ms:";
  for (std::size_t i = 0; i < fingers.size(); ++i) {
    const Finger& f = fingers[i];
    line += (i == 0 ? " " : "; ") + std::to_string(f.from_x) + "," + std::to_string(f.from_y) +
            " -> " + std::to_string(f.to_x) + "," + std::to_string(f.to_y);
  }
  io.device().log_event(line);
  if (fingers.size() == 1 && fingers[0].from_x == fingers[0].to_x &&
      fingers[0].from_y == fingers[0].to_y && length < 500) {
    io.device().screens().input(
        {"tap", std::to_string(fingers[0].from_x), std::to_string(fingers[0].from_y)});
  }
}

// 'L' as the real dumper answers it: "package<TAB>label" per installed app, the label
// loadLabel gives (the package name when the app has none), tabs and line ends made spaces.
std::string app_labels(JobIo& io) {
  std::vector<std::string> packages{std::string(kDemoPackage)};
  for (std::string& name : io.device().state().packages()) packages.push_back(std::move(name));
  std::string out;
  for (const std::string& package : packages) {
    std::string label = io.device().state().label(package);
    if (label.empty()) label = package == kDemoPackage ? std::string(kDemoLabel) : package;
    std::replace_if(
        label.begin(), label.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; },
        ' ');
    out += package + '\t' + label + '\n';
  }
  return out;
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
      } else if (op == kGesture) {
        if (pending_.size() < kGestureHeaderSize) break;
        size = kGestureHeaderSize + 4 * std::size_t{protocol::load_be32(pending_.data() + 1)};
      }
      if (pending_.size() < size) break;
      const std::string clip(
          pending_.begin() + static_cast<std::ptrdiff_t>(op == kSetClip ? kClipHeaderSize : size),
          pending_.begin() + static_cast<std::ptrdiff_t>(size));
      std::vector<std::int32_t> ints;
      if (op == kGesture) {
        for (std::size_t at = kGestureHeaderSize; at < size; at += 4)
          ints.push_back(static_cast<std::int32_t>(protocol::load_be32(pending_.data() + at)));
      }
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(size));
      if (fault_ == DumperFault::never_answer) continue;
      if (fault_ == DumperFault::garbage) {
        io.out(
            "\x7f"
            "ELF\x02\x01 this is no reply frame");
        continue;
      }
      if (op == kPing) {
        reply(io, kOk, "adbwire-dumper 3");
      } else if (op == kSetClip) {
        // IClipboard.setPrimaryClip as the real dumper calls it.
        io.device().screens().set_clipboard(clip);
        reply(io, kOk, "");
      } else if (op == kGetClip) {
        reply(io, kOk, io.device().screens().clipboard());
      } else if (op == kLabels) {
        if (fault_ == DumperFault::no_labels) {
          reply(io, kFailed,
                "java.lang.RuntimeException: Can't create handler inside thread that has not "
                "called Looper.prepare()");
        } else {
          reply(io, kOk, app_labels(io));
        }
      } else if (op == kGesture) {
        answer_gesture(io, ints);
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
  // 'M': refused at the first event the dispatcher would refuse (or at the fault's event),
  // else played on the screen and answered ok.
  void answer_gesture(JobIo& io, const std::vector<std::int32_t>& ints) {
    if (fault_ == DumperFault::no_gestures) {
      io.device().log_event("dumper touch refused at event 0");
      reply(io, kFailed,
            "at event 0: java.lang.VerifyError: Verifier rejected class com.adbwire.Gesture: "
            "void com.adbwire.Gesture.inject(java.io.DataOutputStream, android.app.UiAutomation, "
            "int[]) failed to verify");
      return;
    }
    std::vector<Finger> fingers;
    std::int32_t length = 0;
    int refused = check_gesture(ints, fingers, length);
    const std::int64_t count = ints.empty() ? 0 : ints[0];
    if (fault_ == DumperFault::refuses_input && fault_after_ < count &&
        (refused < 0 || static_cast<std::uint32_t>(refused) > fault_after_))
      refused = static_cast<int>(fault_after_);
    if (refused >= 0) {
      io.device().log_event("dumper touch refused at event " + std::to_string(refused));
      reply(io, kFailed,
            "at event " + std::to_string(refused) +
                (fault_ == DumperFault::refuses_input && refused == 0
                     ? ": java.lang.SecurityException: Injecting input events requires the "
                       "caller (or the source of the instrumentation, if any) to have the "
                       "INJECT_EVENTS permission."
                     : ": UiAutomation.injectInputEvent refused it"));
      return;
    }
    if (!fingers.empty()) play_gesture(io, fingers, length);
    reply(io, kOk, "");
  }

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
