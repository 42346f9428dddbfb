// System commands of the virtual device shell that agents use: settings, date, svc, the
// `dumpsys activity` lines naming the resumed activity (from the screen graph), and pkill for
// the emulated on-device dumper.
#include <cctype>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vdevice/hardware_commands.hpp"
#include "vdevice/install_commands.hpp"
#include "vdevice/screen_graph.hpp"
#include "vdevice/screencap_frames.hpp"
#include "vdevice/shell_job.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

using Argv = std::vector<std::string>;

bool is_namespace(const std::string& name) {
  return name == "system" || name == "secure" || name == "global";
}

// `settings get|put NAMESPACE KEY [VALUE]`; an unset key prints "null" as Android does.
int run_settings(const Argv& argv, JobIo& io) {
  if (argv.size() == 4 && argv[1] == "get" && is_namespace(argv[2])) {
    io.out(io.device().setting(argv[2], argv[3]).value_or("null") + "\n");
    return 0;
  }
  if (argv.size() == 5 && argv[1] == "put" && is_namespace(argv[2])) {
    io.device().log_event(join_argv(argv));
    io.device().put_setting(argv[2], argv[3], argv[4]);
    return 0;
  }
  io.err(
      "usage:  settings [--user <USER_ID> | current] get|put NAMESPACE KEY [VALUE]\n"
      "NAMESPACE is one of {system, secure, global}, case-insensitive\n");
  return 1;
}

// `date` (UTC, toybox's default format) and `date +%s`.
int run_date(const Argv& argv, JobIo& io) {
  const std::time_t now = std::time(nullptr);
  if (argv.size() == 2 && argv[1] == "+%s") {
    io.out(std::to_string(static_cast<long long>(now)) + "\n");
    return 0;
  }
  if (argv.size() > 1) {
    io.err("date: the adbwire virtual device supports only `date` and `date +%s`\n");
    return 1;
  }
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S UTC %Y\n", &utc);
  io.out(text);
  return 0;
}

// `dumpsys activity [activities]`: the lines naming the resumed activity, in the form of the
// device's API level (tests/unit/services/data/PROVENANCE.md has real output of each):
// one `mResumedActivity:` per stack before Android 10; from Android 10 `topResumedActivity=`
// under the display and `ResumedActivity:` per display area; from Android 14 the record closes
// its brace after the component ("ActivityRecord{HASH u0 PACKAGE/ACTIVITY} t12}").
// `dumpsys window`: its mCurrentFocus and mFocusedApp lines. A service the device lacks
// (VirtualDeviceOptions::missing_services) is "Can't find service".
int run_dumpsys(const Argv& argv, JobIo& io) {
  const std::string service = argv.size() >= 2 ? argv[1] : std::string();
  if (io.device().lacks_service(service)) {
    io.err("Can't find service: " + service + "\n");
    return 0;
  }
  if (service == "window") {
    // The focus lines of `dumpsys window` (the whole dump holds hundreds more).
    const std::string activity = io.device().screens().activity();
    const std::string record = activity.empty() ? "null" : "Window{5e8a0c1 u0 " + activity + "}";
    io.out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=" + record + "\n" +
           (activity.empty() ? ""
                             : "  mFocusedApp=ActivityRecord{7f1c2a9 u0 " + activity + " t12}\n"));
    return 0;
  }
  if (service == "activity") {
    const std::string activity = io.device().screens().activity();
    const std::uint32_t api = api_level(io.device());
    std::string out =
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
        "Display #0 (activities from top to bottom):\n";
    if (!activity.empty()) {
      const std::string record = api >= 34 ? "ActivityRecord{7f1c2a9 u0 " + activity + "} t12}"
                                           : "ActivityRecord{7f1c2a9 u0 " + activity + " t12}";
      if (api != 0 && api < 29) {
        out += "    mResumedActivity: " + record + "\n";
      } else {
        out += "    topResumedActivity=" + record + "\n";
        out += "  ResumedActivity: " + record + "\n";
      }
    }
    io.out(out);
    return 0;
  }
  if (service == "package" && argv.size() >= 3) return package_dumpsys(argv, io);
  if (run_hardware_dumpsys(service, io)) return 0;
  io.err("Can't find service: " + service + "\n");
  return 0;
}

// A pkill pattern as a literal: hosts write one character as "[x]" so that the pattern does
// not match the shell running pkill (whose command line contains the pattern itself). Only
// literal characters and one-character classes are understood; nullopt for anything else.
std::optional<std::string> literal_pattern(std::string_view pattern) {
  std::string literal;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '[' && i + 2 < pattern.size() && pattern[i + 2] == ']' && pattern[i + 1] != '^') {
      literal += pattern[i + 1];
      i += 2;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '/') {
      literal += c;
    } else {
      return std::nullopt;
    }
  }
  if (literal.empty()) return std::nullopt;
  return literal;
}

// `pkill [-f] [-SIGNAL] PATTERN` (toybox): ends the emulated processes (the on-device dumper)
// whose command line matches. Exit 1 when none matched, as pkill does.
int run_pkill(const Argv& argv, JobIo& io) {
  std::string pattern;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].starts_with('-')) continue;  // -f, -9, -KILL: every match is ended at once
    pattern = argv[i];
  }
  const auto literal = literal_pattern(pattern);
  if (!literal) {
    io.err("pkill: the adbwire virtual device understands literal patterns and [x] classes only\n");
    return 2;
  }
  io.device().log_event(join_argv(argv));
  return io.device().kill_processes(*literal) > 0 ? 0 : 1;
}

constexpr Builtin kSystemBuiltins[] = {
    {"date", instant<run_date>},   {"dumpsys", instant<run_dumpsys>},
    {"pkill", instant<run_pkill>}, {"settings", instant<run_settings>},
    {"svc", instant<run_svc>},
};

}  // namespace

std::span<const Builtin> system_builtins() { return kSystemBuiltins; }

}  // namespace adbwire::vdevice
