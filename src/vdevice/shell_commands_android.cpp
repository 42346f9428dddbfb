// Android commands of the virtual device shell: getprop, wm, uiautomator, screencap and the
// event injectors input, am, monkey, cmd and pm (logged to DeviceContext::log_event so
// tests can see what a host asked for). Output mimics the real tools where it is cheap.
#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/base64.hpp"
#include "base/number.hpp"
#include "vdevice/bugreport_commands.hpp"
#include "vdevice/device_state_commands.hpp"
#include "vdevice/dumper_app_process.hpp"
#include "vdevice/hardware_commands.hpp"
#include "vdevice/install_commands.hpp"
#include "vdevice/logcat_commands.hpp"
#include "vdevice/sample_screen.hpp"
#include "vdevice/screen_graph.hpp"
#include "vdevice/screencap_frames.hpp"
#include "vdevice/screenrecord_command.hpp"
#include "vdevice/shell_job.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// Device path as a tool prints it: relative paths are relative to "/", where adbd's shell runs.
std::string absolute(const std::string& path) { return path.starts_with('/') ? path : "/" + path; }

int run_getprop(const Argv& argv, JobIo& io) {
  const auto& props = io.device().properties();
  if (argv.size() == 1) {
    std::string all;
    for (const auto& [key, value] : props) all += "[" + key + "]: [" + value + "]\n";
    io.out(all);
    return 0;
  }
  auto it = props.find(argv[1]);
  std::string value = it != props.end() ? it->second : argv.size() > 2 ? argv[2] : "";
  io.out(value + "\n");
  return 0;
}

int run_wm(const Argv& argv, JobIo& io) {
  if (argv.size() == 2 && argv[1] == "size") {
    io.out("Physical size: " + std::to_string(SampleScreen::kWidth) + "x" +
           std::to_string(SampleScreen::kHeight) + "\n");
    return 0;
  }
  if (argv.size() == 2 && argv[1] == "density") {
    io.out("Physical density: " + std::to_string(SampleScreen::kDensity) + "\n");
    return 0;
  }
  if (argv.size() == 2 && argv[1] == "dismiss-keyguard") {
    io.device().log_event(join_argv(argv));
    return 0;
  }
  io.err(
      "wm: the adbwire virtual device supports only `wm size`, `wm density` and `wm "
      "dismiss-keyguard`\n");
  return 1;
}

// The failure texts of the real tool, for UiDumpFault; true when a fault was reported.
bool report_dump_fault(UiDumpFault fault, int& exit_code, JobIo& io) {
  switch (fault) {
    case UiDumpFault::idle_state:
      io.out("ERROR: could not get idle state.\n");
      exit_code = 0;
      return true;
    case UiDumpFault::null_root:
      io.out("ERROR: null root node returned by UiTestAutomationBridge.\n");
      exit_code = 0;
      return true;
    case UiDumpFault::already_registered:
      io.err(
          "java.lang.IllegalStateException: UiAutomationService "
          "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@3c5a2f1 already "
          "registered!\n"
          "\tat android.app.UiAutomation.connect(UiAutomation.java:259)\n");
      exit_code = 1;
      return true;
    case UiDumpFault::killed:
      io.err("Killed\n");
      exit_code = 137;
      return true;
    case UiDumpFault::none:
    case UiDumpFault::empty_file:
      return false;
  }
  return false;
}

int run_uiautomator(const Argv& argv, JobIo& io) {
  if (argv.size() < 2 || argv[1] != "dump") {
    io.err("Usage: uiautomator dump [--compressed] [FILE]\n");
    return 1;
  }
  std::string path = "/sdcard/window_dump.xml";
  for (std::size_t i = 2; i < argv.size(); ++i) {
    if (!argv[i].starts_with("--")) path = argv[i];
  }
  // One UiAutomation connection per device: while the on-device dumper (or another tool)
  // holds it, uiautomator fails as it does on a phone.
  const UiDumpFault fault = io.device().ui_automation_held() ? UiDumpFault::already_registered
                                                             : io.device().screens().take_fault();
  int exit_code = 0;
  if (report_dump_fault(fault, exit_code, io)) return exit_code;
  const std::string xml =
      fault == UiDumpFault::empty_file ? std::string() : io.device().screens().dump();
  if (path == "/dev/tty") {
    io.out(xml);
  } else {
    std::error_code error;
    fs::path host = io.device().resolve(path, error);
    std::ofstream file;
    if (!error) file.open(host, std::ios::binary | std::ios::trunc);
    if (error || !file.write(xml.data(), static_cast<std::streamsize>(xml.size()))) {
      io.err("ERROR: could not write the UI hierarchy to " + path + "\n");
      return 1;
    }
  }
  // "hierchary" is how AOSP's uiautomator spells it; hosts match this line.
  io.out("UI hierchary dumped to: " + absolute(path) + "\n");
  return 0;
}

// `input [SOURCE] COMMAND ARGS`: checks the argument shapes the real tool checks, then logs.
int run_input(const Argv& argv, JobIo& io) {
  static constexpr std::string_view kSources[] = {
      "keyboard", "mouse", "joystick", "touchpad",        "touchscreen",  "trackball",
      "stylus",   "dpad",  "gamepad",  "touchnavigation", "rotaryencoder"};
  std::size_t at = 1;
  if (at < argv.size() &&
      std::find(std::begin(kSources), std::end(kSources), argv[at]) != std::end(kSources))
    ++at;
  if (at >= argv.size()) {
    io.err("Usage: input [<source>] <command> [<arg>...]\n");
    return 1;
  }
  const std::string& command = argv[at];
  std::vector<std::string> args(argv.begin() + static_cast<std::ptrdiff_t>(at) + 1, argv.end());
  bool numeric = std::all_of(args.begin(), args.end(), [](const std::string& a) {
    return detail::parse_number<double>(a).has_value();
  });
  bool ok = false;
  if (command == "tap") {
    ok = args.size() == 2 && numeric;
  } else if (command == "swipe" || command == "draganddrop") {
    ok = (args.size() == 4 || args.size() == 5) && numeric;
  } else if (command == "keyevent" || command == "keycombination" || command == "text") {
    ok = !args.empty();
  } else if (command == "press" || command == "roll" || command == "motionevent" ||
             command == "scroll") {
    ok = true;
  } else {
    io.err("Error: Unknown command: " + command + "\n");
    return 1;
  }
  if (!ok) {
    io.err("Error: Invalid arguments for command: " + command + "\n");
    return 1;
  }
  io.device().log_event(join_argv(argv));
  std::vector<std::string> event{command};
  event.insert(event.end(), args.begin(), args.end());
  io.device().screens().input(event);
  if (command == "keyevent") {
    for (const std::string& key : args) camera_key(key, io);
  }
  return 0;
}

int run_am(const Argv& argv, JobIo& io) {
  io.device().log_event(join_argv(argv));
  if (argv.size() > 1 && (argv[1] == "start" || argv[1] == "start-activity")) {
    std::string intent;
    std::string component;
    std::string data;
    bool wait = false;
    for (std::size_t i = 2; i < argv.size(); ++i) {
      if (argv[i] == "-W") wait = true;
      if (i + 1 >= argv.size()) continue;
      if (argv[i] == "-n") component = argv[i + 1];
      if (argv[i] == "-d") data = argv[i + 1];
      if (argv[i] == "-n") intent = "cmp=" + argv[i + 1];
      if (argv[i] == "-a" && intent.empty()) intent = "act=" + argv[i + 1];
    }
    io.out("Starting: Intent { " + intent + " }\n");
    if (intent == "act=android.media.action.STILL_IMAGE_CAMERA") open_camera(io);
    if (wait) {
      // What `am start -W` adds once the activity is up; a web or other URI goes to the browser.
      if (component.empty() && data.find(':') != std::string::npos)
        component = "com.android.browser/.BrowserActivity";
      io.out("Status: ok\nLaunchState: COLD\n");
      if (!component.empty()) io.out("Activity: " + component + "\n");
      io.out("TotalTime: 120\nWaitTime: 125\nComplete\n");
    }
  } else if (argv.size() > 1 && argv[1] == "broadcast") {
    // Android 7 made AIRPLANE_MODE a protected broadcast the shell may not send.
    if (std::find(argv.begin(), argv.end(), "android.intent.action.AIRPLANE_MODE") != argv.end() &&
        api_level(io.device()) >= 24) {
      io.err(
          "Exception occurred while executing 'broadcast':\njava.lang.SecurityException: "
          "Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE "
          "from pid=4242, uid=2000\n");
      return 255;
    }
    io.out("Broadcasting: Intent { }\nBroadcast completed: result=0\n");
    // ADBKeyBoard, when it is the input method, types what these broadcasts carry.
    const std::optional<std::string> ime = io.device().setting("secure", "default_input_method");
    if (ime && ime->starts_with("com.android.adbkeyboard/")) {
      std::string action;
      std::string message;
      for (std::size_t i = 2; i + 1 < argv.size(); ++i) {
        if (argv[i] == "-a") action = argv[i + 1];
        if (argv[i] == "--es" && i + 2 < argv.size() && argv[i + 1] == "msg") message = argv[i + 2];
      }
      if (action == "ADB_INPUT_B64") {
        if (const auto bytes = detail::base64_decode(message))
          io.device().screens().type_raw(std::string(bytes->begin(), bytes->end()));
      } else if (action == "ADB_CLEAR_TEXT") {
        io.device().screens().clear_focused();
      }
    }
  }
  return 0;
}

int run_monkey(const Argv& argv, JobIo& io) {
  io.device().log_event(join_argv(argv));
  if (argv.size() < 2 || !detail::parse_number<std::uint64_t>(argv.back())) {
    io.err("** Error: Count not specified\n");
    return 1;
  }
  io.out("Events injected: " + argv.back() +
         "\n## Network stats: elapsed time=0ms (0ms mobile, 0ms wifi, 0ms not connected)\n");
  return 0;
}

class DoneJob final : public Job {
  JobStep step(JobIo&) override { return JobStep::done(0); }
};

// Logs the command line when the job runs (not when it is made), so skipped commands of
// `a && b` never appear in the events.
class LoggedJob final : public Job {
 public:
  LoggedJob(Argv argv, std::unique_ptr<Job> inner)
      : line_(join_argv(argv)), inner_(std::move(inner)) {}
  JobStep step(JobIo& io) override {
    if (!logged_) {
      io.device().log_event(line_);
      logged_ = true;
    }
    return inner_->step(io);
  }

 private:
  std::string line_;
  std::unique_ptr<Job> inner_;
  bool logged_ = false;
};

std::unique_ptr<Job> make_cmd(Argv argv) {
  std::unique_ptr<Job> job;
  if (argv.size() >= 2 && argv[1] == "package") job = package_job({argv.begin() + 2, argv.end()});
  if (argv.size() >= 2 && argv[1] == "connectivity") job = instant<run_cmd_connectivity>(argv);
  if (!job) job = std::make_unique<DoneJob>();
  return std::make_unique<LoggedJob>(std::move(argv), std::move(job));
}

std::unique_ptr<Job> make_pm(Argv argv) {
  std::unique_ptr<Job> job = package_job({argv.begin() + 1, argv.end()});
  if (!job) job = std::make_unique<DoneJob>();
  return std::make_unique<LoggedJob>(std::move(argv), std::move(job));
}

constexpr Builtin kAndroidBuiltins[] = {
    {"am", instant<run_am>},
    {"app_process", make_app_process},
    {"bugreport", make_bugreport},
    {"bugreportz", make_bugreportz},
    {"cmd", make_cmd},
    {"getprop", instant<run_getprop>},
    {"id", make_id},
    {"input", instant<run_input>},
    {"logcat", make_logcat},
    {"monkey", instant<run_monkey>},
    {"pm", make_pm},
    {"screencap", make_screencap},
    {"screenrecord", make_screenrecord},
    {"uiautomator", instant<run_uiautomator>},
    {"wm", instant<run_wm>},
};

}  // namespace

std::span<const Builtin> android_builtins() { return kAndroidBuiltins; }

}  // namespace adbwire::vdevice
