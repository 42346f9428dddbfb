#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/logcat.hpp"
#include "base/number.hpp"
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
  std::vector<std::string> device_args;  // words for the device's logcat, as given
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

// logcat's options that take a value (its getopt string and long options): the value goes to
// the device with them, so it is not read as a filterspec.
bool takes_value(std::string_view option) {
  static constexpr std::string_view kValued[] = {"-b",
                                                 "-v",
                                                 "-f",
                                                 "-r",
                                                 "-n",
                                                 "-G",
                                                 "-P",
                                                 "-m",
                                                 "-e",
                                                 "-t",
                                                 "-T",
                                                 "--buffer",
                                                 "--format",
                                                 "--file",
                                                 "--rotate-kbytes",
                                                 "--rotate-count",
                                                 "--buffer-size",
                                                 "--prune",
                                                 "--max-count",
                                                 "--regex",
                                                 "--pid",
                                                 "--uid"};
  return std::find(std::begin(kValued), std::end(kValued), option) != std::end(kValued);
}

// The words after `logcat`, as adb passes them all to the device's logcat: adbwire reads the
// ones it implements here (-d -c -s -t N -T N, filterspecs) and passes the others on, so the
// device's logcat answers for them (and says so when it refuses one).
LogcatArgs read_logcat_words(const std::vector<std::string>& words) {
  LogcatArgs args;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    std::optional<std::size_t> count;
    if ((word == "-t" || word == "-T") && i + 1 < words.size()) {
      count = detail::parse_number<std::size_t>(words[i + 1]);
    }
    if (word == "-d") {
      args.dump = true;
    } else if (word == "-c") {
      args.clear = true;
    } else if (word == "-s") {
      args.silent = true;
    } else if (count) {
      args.tail = static_cast<int>(std::min<std::size_t>(*count, INT_MAX));
      args.dump = args.dump || word == "-t";  // -t N: the last N, then exit
      ++i;
    } else if (!word.starts_with('-')) {
      args.filters.push_back(word);
    } else {
      args.device_args.push_back(word);
      if (takes_value(word) && i + 1 < words.size()) args.device_args.push_back(words[++i]);
    }
  }
  return args;
}

}  // namespace

void add_logcat_command(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto* cmd = app.add_subcommand(
      "logcat",
      "print the device log as it grows (threadtime format): logcat [-d] [-c] [-s] [-t N] "
      "[-T N] [OPTION…] [TAG:LEVEL…]. -d: what the device holds, then exit; -c: clear first; "
      "-s: only the tags named; -t N / -T N: the last N records (-t exits). Filterspecs: "
      "TAG:LEVEL with LEVEL V D I W E F S, *:LEVEL for the rest. Other options go to the "
      "device's logcat as adb passes them");
  cmd->callback([&globals, &run] {
    run = [&globals] {
      const LogcatArgs args = read_logcat_words(globals.command_words);
      LogcatOptions options;
      options.filter = LogFilter::parse(args.filters, args.silent);
      options.dump = args.dump;
      options.clear = args.clear;
      options.device_args = args.device_args;
      options.ring_capacity = 0;
      if (args.tail >= 0) options.tail = static_cast<std::size_t>(args.tail);
      Device device = connect_device(globals);
      if (args.clear && !args.dump && args.filters.empty() && args.tail < 0 &&
          args.device_args.empty()) {
        // `logcat -c` alone: clear and exit, as adb does.
        device.shell("logcat -c");
        return 0;
      }
      Logcat logcat = Logcat::start(device, options, print_record);
      logcat.wait(kNoDeadline);
      if (logcat.error() == errc::command_failed) {
        // As adb, which shows what the device's logcat printed and fails.
        print_error("adbwire: " + logcat.error_detail());
        return 1;
      }
      if (const std::error_code error = logcat.error()) {
        throw Error(error, "reading logcat from " + device.serial() + ": " + logcat.error_detail());
      }
      return 0;
    };
  });
}

}  // namespace adbwire::cli
