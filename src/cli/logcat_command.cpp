#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/logcat.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

struct LogcatArgs {
  std::vector<std::string> filters;  // TAG:LEVEL …
  bool silent = false;
  bool dump = false;
  bool clear = false;
  int tail = -1;
};

// One record as `logcat -v threadtime` prints it, each line of the message with the prefix.
void print_record(const LogRecord& record) {
  const auto since_epoch = record.time.time_since_epoch();
  const std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%m-%d %H:%M:%S", &local);
  std::size_t at = 0;
  do {
    std::size_t end = record.message.find('\n', at);
    if (end == std::string::npos) end = record.message.size();
    // Any app can log: its tag and words must not act on the terminal.
    print(format("%s.%03d %5d %5u %c %-8s: %s\n", stamp, static_cast<int>(millis), record.pid,
                 record.tid, log_level_letter(record.level), shown(record.tag).c_str(),
                 shown(std::string_view(record.message).substr(at, end - at)).c_str()));
    at = end + 1;
  } while (at < record.message.size());
}

}  // namespace

void add_logcat_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto args = std::make_shared<LogcatArgs>();
  auto* cmd = app.add_subcommand("logcat",
                                 "print the device log as it grows (threadtime format): "
                                 "logcat [-d] [-c] [-s] [-T N] [TAG:LEVEL…]");
  cmd->add_option("filters", args->filters,
                  "filterspecs: TAG:LEVEL with LEVEL V D I W E F S, *:LEVEL for the rest");
  cmd->add_flag("-s", args->silent, "show only the tags named in filters (default level S)");
  cmd->add_flag("-d", args->dump, "print what the device holds, then exit");
  cmd->add_flag("-c", args->clear, "clear the device log first");
  cmd->add_option("-T", args->tail, "start with the last N records");
  cmd->callback([args, &globals, &run] {
    run = [args, &globals] {
      LogcatOptions options;
      options.filter = LogFilter::parse(args->filters, args->silent);
      options.dump = args->dump;
      options.clear = args->clear;
      options.ring_capacity = 0;
      if (args->tail >= 0) options.tail = static_cast<std::size_t>(args->tail);
      Device device = connect_device(globals);
      if (args->clear && !args->dump && args->filters.empty() && args->tail < 0) {
        // `logcat -c` alone: clear and exit, as adb does.
        device.shell("logcat -c");
        return 0;
      }
      Logcat logcat = Logcat::start(device, options, print_record);
      logcat.wait(kNoDeadline);
      if (const std::error_code error = logcat.error()) {
        throw Error(error, "reading logcat from " + device.serial() + ": " + logcat.error_detail());
      }
      return 0;
    };
  });
}

}  // namespace adbwire::cli
