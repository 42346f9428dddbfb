// File and general commands of the virtual device shell: echo, cat, dd, head, ls, rm, mkdir,
// true, false, sleep, stty size. Messages follow toybox, Android's /system/bin.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adbwire/testing/vdevice.hpp"
#include "base/number.hpp"
#include "vdevice/device_context.hpp"
#include "vdevice/shell_job.hpp"
#include "vdevice/shell_parser.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;
using Argv = std::vector<std::string>;

// Longest `sleep` the virtual device accepts: tests must never wait long.
constexpr double kMaxSleepSeconds = 60;

// Splits leading "-xyz" flag clusters from operands; "--" ends flags. Unknown flags go
// into `unknown`.
struct Flags {
  std::string set;
  char unknown = 0;
  std::vector<std::string> operands;
  bool has(char c) const { return set.find(c) != std::string::npos; }
};

Flags parse_flags(const Argv& argv, std::string_view known) {
  Flags flags;
  bool operands_only = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!operands_only && arg == "--") {
      operands_only = true;
    } else if (!operands_only && arg.size() > 1 && arg[0] == '-') {
      for (char c : std::string_view(arg).substr(1)) {
        if (known.find(c) == std::string_view::npos && flags.unknown == 0) flags.unknown = c;
        flags.set += c;
      }
    } else {
      flags.operands.push_back(arg);
    }
  }
  return flags;
}

int run_echo(const Argv& argv, JobIo& io) {
  std::size_t first = 1;
  bool newline = true;
  while (first < argv.size() && argv[first] == "-n") {
    newline = false;
    ++first;
  }
  std::string line;
  for (std::size_t i = first; i < argv.size(); ++i) {
    if (i > first) line += ' ';
    line += argv[i];
  }
  if (newline) line += '\n';
  io.out(line);
  return 0;
}

int run_true(const Argv&, JobIo&) { return 0; }
int run_false(const Argv&, JobIo&) { return 1; }

// Reads a list of sources (files, "-" for stdin, /dev/zero, /dev/null) up to a limit of
// bytes or lines: the engine behind cat and head.
class CopyJob final : public Job {
 public:
  enum class Limit { none, bytes, lines };

  // start: bytes of each file skipped first (dd's skip=), by seeking.
  CopyJob(std::string name, std::vector<std::string> sources, Limit limit, std::uint64_t count,
          std::uint64_t start = 0)
      : name_(std::move(name)),
        sources_(std::move(sources)),
        limit_(limit),
        remaining_(count),
        start_(start) {
    if (sources_.empty()) sources_.push_back("-");
  }

  JobStep step(JobIo& io) override {
    buffer_.resize(JobIo::kChunk);
    while (index_ < sources_.size()) {
      if (limit_ != Limit::none && remaining_ == 0) break;
      const std::string& source = sources_[index_];
      if (!opened_ && !open(source, io)) {
        ++index_;
        continue;
      }
      std::size_t want = std::min(io.room(), buffer_.size());
      if (limit_ == Limit::bytes)
        want = static_cast<std::size_t>(std::min<std::uint64_t>(want, remaining_));
      if (want == 0) return JobStep::more();
      std::size_t got = 0;
      if (kind_ == Source::zero) {
        std::fill_n(buffer_.begin(), want, 0);
        got = want;
      } else if (kind_ == Source::stdin_data) {
        got = io.read_stdin(std::span<std::uint8_t>(buffer_).first(want));
        if (got == 0 && !io.stdin_eof()) return JobStep::wait_input();
      } else if (kind_ == Source::file) {
        file_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(want));
        got = static_cast<std::size_t>(file_.gcount());
      }
      if (got == 0) {
        next_source();
        continue;
      }
      emit(io, got);
      return JobStep::more();
    }
    return JobStep::done(failed_ ? 1 : 0);
  }

 private:
  enum class Source { file, stdin_data, zero, empty };

  bool open(const std::string& source, JobIo& io) {
    opened_ = true;
    if (source == "-") {
      kind_ = Source::stdin_data;
      return true;
    }
    if (source == "/dev/zero") {
      kind_ = Source::zero;
      return true;
    }
    if (source == "/dev/null") {
      kind_ = Source::empty;
      return true;
    }
    std::error_code error;
    fs::path host = io.device().resolve(source, error);
    std::string problem;
    if (error) {
      problem = "Permission denied";
    } else if (fs::is_directory(host)) {
      problem = "Is a directory";
    } else {
      file_ = std::ifstream(host, std::ios::binary);
      if (!file_) problem = "No such file or directory";
      if (file_ && start_ > 0) file_.seekg(static_cast<std::streamoff>(start_));
    }
    if (!problem.empty()) {
      io.err(name_ + ": " + source + ": " + problem + "\n");
      failed_ = true;
      opened_ = false;
      return false;
    }
    kind_ = Source::file;
    return true;
  }

  void next_source() {
    file_ = std::ifstream();
    opened_ = false;
    ++index_;
  }

  void emit(JobIo& io, std::size_t got) {
    std::span<const std::uint8_t> data(buffer_.data(), got);
    if (limit_ == Limit::lines) {
      std::size_t i = 0;
      while (i < data.size() && remaining_ > 0) {
        if (data[i++] == '\n') --remaining_;
      }
      data = data.first(i);
    } else if (limit_ == Limit::bytes) {
      remaining_ -= data.size();
    }
    io.out(data);
  }

  std::string name_;
  std::vector<std::string> sources_;
  Limit limit_;
  std::uint64_t remaining_;
  std::uint64_t start_;
  std::size_t index_ = 0;
  bool opened_ = false;
  bool failed_ = false;
  Source kind_ = Source::empty;
  std::ifstream file_;
  std::vector<std::uint8_t> buffer_;
};

std::unique_ptr<Job> make_cat(Argv argv) {
  std::vector<std::string> sources(argv.begin() + 1, argv.end());
  return std::make_unique<CopyJob>("cat", std::move(sources), CopyJob::Limit::none, 0);
}

std::unique_ptr<Job> make_head(Argv argv) {
  CopyJob::Limit limit = CopyJob::Limit::lines;
  std::uint64_t count = 10;
  std::vector<std::string> sources;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("-c") || arg.starts_with("-n")) {
      limit = arg[1] == 'c' ? CopyJob::Limit::bytes : CopyJob::Limit::lines;
      std::string_view value = arg.substr(2);
      if (value.empty()) {
        if (i + 1 >= argv.size()) return error_job("head: Needs 1 argument\n", 1);
        value = argv[++i];
      }
      auto parsed = detail::parse_number<std::uint64_t>(value);
      if (!parsed) return error_job("head: not integer: " + std::string(value) + "\n", 1);
      count = *parsed;
    } else {
      sources.emplace_back(arg);
    }
  }
  return std::make_unique<CopyJob>("head", std::move(sources), limit, count);
}

// dd as toybox (and toolbox's NetBSD dd before it) runs what hosts send: if=FILE bs=N skip=N
// count=N, the input skipped by seeking, the record counts on stderr at the end, "dd: unknown
// arg X" for another operand. Under HostileOutput's range faults it answers a byte short, with
// zeros without end after the range, or from one block further on. Logged as an event, so tests
// count the ranges a host asked for.
class DdJob final : public Job {
 public:
  DdJob(Argv argv, std::string input, std::uint64_t block, std::uint64_t skip,
        std::optional<std::uint64_t> count)
      : argv_(std::move(argv)),
        input_(std::move(input)),
        block_(block),
        skip_(skip),
        count_(count) {}

  JobStep step(JobIo& io) override {
    if (!copy_) {
      io.device().log_event(join_argv(argv_));
      std::uint64_t start = skip_ * block_;
      std::uint64_t limit = count_ ? *count_ * block_ : std::numeric_limits<std::uint64_t>::max();
      std::error_code error;
      const fs::path host = io.device().resolve(input_, error);
      const std::uint64_t size = error ? 0 : fs::file_size(host, error);
      copied_ = std::min(limit, error || size < start ? 0 : size - start);
      const HostileOutput fault = io.device().hostile_output();
      if (fault == HostileOutput::shifted_ranges) start += block_;
      if (fault == HostileOutput::short_ranges && copied_ > 0) limit = --copied_;
      endless_ = fault == HostileOutput::long_ranges;
      copy_ = std::make_unique<CopyJob>("dd", std::vector<std::string>{input_},
                                        CopyJob::Limit::bytes, limit, start);
    }
    const JobStep step = copy_->step(io);
    if (step.kind != JobStep::Kind::done) return step;
    if (endless_) {
      endless_ = false;
      copy_ = std::make_unique<CopyJob>("dd", std::vector<std::string>{"/dev/zero"},
                                        CopyJob::Limit::none, 0);
      return JobStep::more();
    }
    if (step.exit_code == 0) {
      const std::string records = std::to_string(copied_ / block_) + "+" +
                                  std::to_string(copied_ % block_ != 0 ? 1 : 0) + " records ";
      io.err(records + "in\n" + records + "out\n" + std::to_string(copied_) + " bytes copied\n");
    }
    return step;
  }

 private:
  Argv argv_;
  std::string input_;
  std::uint64_t block_;
  std::uint64_t skip_;
  std::optional<std::uint64_t> count_;
  std::uint64_t copied_ = 0;
  bool endless_ = false;
  std::unique_ptr<CopyJob> copy_;
};

std::unique_ptr<Job> make_dd(Argv argv) {
  std::string input = "-";
  std::uint64_t block = 512;
  std::uint64_t skip = 0;
  std::optional<std::uint64_t> count;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    const std::size_t equals = arg.find('=');
    const std::string key = arg.substr(0, equals);
    if (equals == std::string::npos ||
        (key != "if" && key != "bs" && key != "skip" && key != "count" && key != "status"))
      return error_job("dd: unknown arg " + key + "\n", 1);
    const std::string value = arg.substr(equals + 1);
    if (key == "if") {
      input = value;
      continue;
    }
    if (key == "status") continue;
    const std::optional<std::uint64_t> number = detail::parse_number<std::uint64_t>(value);
    if (!number || (key == "bs" && *number == 0))
      return error_job("dd: invalid number '" + value + "'\n", 1);
    if (key == "bs") block = *number;
    if (key == "skip") skip = *number;
    if (key == "count") count = *number;
  }
  return std::make_unique<DdJob>(std::move(argv), std::move(input), block, skip, count);
}

std::string mode_string(const fs::file_status& status) {
  std::string mode = fs::is_directory(status) ? "d" : fs::is_symlink(status) ? "l" : "-";
  auto p = status.permissions();
  auto bit = [&](fs::perms b, char c) { mode += (p & b) != fs::perms::none ? c : '-'; };
  bit(fs::perms::owner_read, 'r');
  bit(fs::perms::owner_write, 'w');
  bit(fs::perms::owner_exec, 'x');
  bit(fs::perms::group_read, 'r');
  bit(fs::perms::group_write, 'w');
  bit(fs::perms::group_exec, 'x');
  bit(fs::perms::others_read, 'r');
  bit(fs::perms::others_write, 'w');
  bit(fs::perms::others_exec, 'x');
  return mode;
}

std::string long_entry(const fs::path& host, const std::string& name) {
  std::error_code error;
  auto status = fs::symlink_status(host, error);
  std::uintmax_t size = fs::is_regular_file(status) ? fs::file_size(host, error) : 4096;
  auto time = fs::last_write_time(host, error);
  std::time_t t =
      error ? 0 : std::chrono::system_clock::to_time_t(std::chrono::file_clock::to_sys(time));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
  return mode_string(status) + " 1 root root " + std::to_string(size) + " " + date + " " + name +
         "\n";
}

int run_ls(const Argv& argv, JobIo& io) {
  Flags flags = parse_flags(argv, "la1");
  if (flags.unknown != 0) {
    io.err(std::string("ls: Unknown option '") + flags.unknown + "'\n");
    return 1;
  }
  std::vector<std::string> paths = flags.operands;
  if (paths.empty()) paths.push_back("/");
  int status = 0;
  bool first = true;
  for (const std::string& path : paths) {
    std::error_code error;
    fs::path host = io.device().resolve(path, error);
    std::error_code missing;
    if (error || !fs::exists(fs::symlink_status(host, missing))) {
      io.err("ls: " + path + (error ? ": Permission denied\n" : ": No such file or directory\n"));
      status = 1;
      continue;
    }
    if (!fs::is_directory(host)) {
      io.out(flags.has('l') ? long_entry(host, path) : path + "\n");
      continue;
    }
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(host, error)) {
      std::string name = entry.path().filename().string();
      if (name.starts_with('.') && !flags.has('a')) continue;
      names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    std::string text;
    if (paths.size() > 1) text += (first ? "" : "\n") + path + ":\n";
    if (flags.has('l')) {
      std::uintmax_t blocks = 0;
      for (const auto& name : names) {
        std::error_code size_error;
        auto size =
            fs::is_regular_file(host / name) ? fs::file_size(host / name, size_error) : 4096;
        blocks += (size + 1023) / 1024;
      }
      text += "total " + std::to_string(blocks) + "\n";
      for (const auto& name : names) text += long_entry(host / name, name);
    } else {
      for (const auto& name : names) text += name + "\n";
    }
    io.out(text);
    first = false;
  }
  return status;
}

int run_rm(const Argv& argv, JobIo& io) {
  Flags flags = parse_flags(argv, "frRv");
  if (flags.operands.empty()) {
    if (flags.has('f')) return 0;
    io.err("rm: Needs 1 argument\n");
    return 1;
  }
  bool recursive = flags.has('r') || flags.has('R');
  int status = 0;
  for (const std::string& path : flags.operands) {
    std::error_code error;
    fs::path host = io.device().resolve(path, error);
    auto fail = [&](const char* why) {
      io.err("rm: " + path + ": " + why + "\n");
      status = 1;
    };
    if (error || host == io.device().root()) {
      fail("Permission denied");
    } else if (!fs::exists(fs::symlink_status(host, error))) {
      if (!flags.has('f')) fail("No such file or directory");
    } else if (fs::is_directory(fs::symlink_status(host, error)) && !recursive) {
      fail("Is a directory");
    } else if (fs::remove_all(host, error) == static_cast<std::uintmax_t>(-1) || error) {
      fail("Permission denied");
    }
  }
  return status;
}

int run_mkdir(const Argv& argv, JobIo& io) {
  Flags flags = parse_flags(argv, "pm");
  if (flags.operands.empty()) {
    io.err("mkdir: Needs 1 argument\n");
    return 1;
  }
  int status = 0;
  for (const std::string& path : flags.operands) {
    std::error_code error;
    fs::path host = io.device().resolve(path, error);
    auto fail = [&](const char* why) {
      io.err("mkdir: " + path + ": " + why + "\n");
      status = 1;
    };
    if (error) {
      fail("Permission denied");
    } else if (fs::exists(host)) {
      if (!flags.has('p') || !fs::is_directory(host)) fail("File exists");
    } else if (flags.has('p')) {
      if (!fs::create_directories(host, error)) fail("Permission denied");
    } else if (!fs::is_directory(host.parent_path())) {
      fail("No such file or directory");
    } else if (!fs::create_directory(host, error)) {
      fail("Permission denied");
    }
  }
  return status;
}

class SleepJob final : public Job {
 public:
  explicit SleepJob(std::chrono::milliseconds delay) : delay_(delay) {}
  JobStep step(JobIo&) override {
    if (slept_ || delay_.count() == 0) return JobStep::done(0);
    slept_ = true;
    return JobStep::sleep(delay_);
  }

 private:
  std::chrono::milliseconds delay_;
  bool slept_ = false;
};

std::unique_ptr<Job> make_sleep(Argv argv) {
  if (argv.size() != 2) return error_job("sleep: Needs 1 argument\n", 1);
  const std::string& arg = argv[1];
  const std::optional<double> parsed = detail::parse_number<double>(arg);
  if (!parsed || *parsed < 0) return error_job("sleep: invalid number '" + arg + "'\n", 1);
  const double seconds = *parsed;
  if (seconds > kMaxSleepSeconds) {
    return error_job("sleep: " + arg + ": the adbwire virtual device sleeps at most 60 s\n", 1);
  }
  return std::make_unique<SleepJob>(
      std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)));
}

// `stty size` as toybox prints it: "ROWS COLS" of the PTY on stdin (what the host's window-size
// packets set). Only that form: the virtual device has no other terminal settings to show.
int run_stty(const Argv& argv, JobIo& io) {
  if (argv.size() != 2 || argv[1] != "size") {
    io.err("stty: the adbwire virtual device supports only `stty size`\n");
    return 1;
  }
  const protocol::WindowSize* size = io.terminal();
  if (size == nullptr) {
    io.err("stty: standard input: Not a tty\n");
    return 1;
  }
  io.out(std::to_string(size->rows) + " " + std::to_string(size->cols) + "\n");
  return 0;
}

constexpr Builtin kFileBuiltins[] = {
    {"cat", make_cat},
    {"dd", make_dd},
    {"echo", instant<run_echo>},
    {"false", instant<run_false>},
    {"head", make_head},
    {"ls", instant<run_ls>},
    {"mkdir", instant<run_mkdir>},
    {"rm", instant<run_rm>},
    {"sleep", make_sleep},
    {"stty", instant<run_stty>},
    {"true", instant<run_true>},
};

}  // namespace

std::span<const Builtin> file_builtins() { return kFileBuiltins; }

BuiltinFactory find_builtin(std::string_view name) {
  for (auto table : {file_builtins(), android_builtins(), system_builtins()}) {
    for (const Builtin& builtin : table) {
      if (builtin.name == name) return builtin.make;
    }
  }
  return nullptr;
}

std::unique_ptr<Job> error_job(std::string message, int code) {
  class ErrorJob final : public Job {
   public:
    ErrorJob(std::string m, int c) : message_(std::move(m)), code_(c) {}
    JobStep step(JobIo& io) override {
      io.err(message_);
      return JobStep::done(code_);
    }

   private:
    std::string message_;
    int code_;
  };
  return std::make_unique<ErrorJob>(std::move(message), code);
}

bool PendingOutput::flush(JobIo& io) {
  std::size_t n = std::min(io.room(), buffer_.size() - offset_);
  if (n > 0) io.out(std::span<const std::uint8_t>(buffer_).subspan(offset_, n));
  offset_ += n;
  if (offset_ < buffer_.size()) return false;
  buffer_.clear();
  offset_ = 0;
  return true;
}

}  // namespace adbwire::vdevice
