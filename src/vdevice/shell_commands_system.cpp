// System commands of the virtual device shell that agents use: settings, date and the
// `dumpsys activity` line naming the resumed activity (from the screen graph).
#include <ctime>
#include <string>
#include <vector>

#include "vdevice/screen_graph.hpp"
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

int run_dumpsys(const Argv& argv, JobIo& io) {
  if (argv.size() >= 2 && argv[1] == "activity") {
    const std::string activity = io.device().screens().activity();
    io.out("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n");
    if (!activity.empty())
      io.out("  mResumedActivity: ActivityRecord{7f1c2a u0 " + activity + " t12}\n");
    return 0;
  }
  io.err("Can't find service: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n");
  return 0;
}

constexpr Builtin kSystemBuiltins[] = {
    {"date", instant<run_date>},
    {"dumpsys", instant<run_dumpsys>},
    {"settings", instant<run_settings>},
};

}  // namespace

std::span<const Builtin> system_builtins() { return kSystemBuiltins; }

}  // namespace adbwire::vdevice
