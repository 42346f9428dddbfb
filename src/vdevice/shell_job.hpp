// One running command of the virtual device's shell. A job does a bounded piece of work per
// step(), so a command producing gigabytes (head -c, cat, screencap) streams in bounded
// memory and a command waiting for stdin or time never blocks the I/O thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/shell_v2.hpp"
#include "vdevice/device_context.hpp"

namespace adbwire::vdevice {

// A job's view of its descriptors, with redirects already applied.
class JobIo {
 public:
  // Bytes of output worth producing now: writes past it are accepted but grow the queue.
  static constexpr std::size_t kChunk = 64 * 1024;

  virtual ~JobIo() = default;
  virtual std::size_t room() const = 0;
  virtual void out(std::span<const std::uint8_t> bytes) = 0;  // fd 1
  virtual void err(std::span<const std::uint8_t> bytes) = 0;  // fd 2
  // Copies up to into.size() bytes of stdin; 0 means none now (see stdin_eof()).
  virtual std::size_t read_stdin(std::span<std::uint8_t> into) = 0;
  virtual bool stdin_eof() const = 0;
  virtual DeviceContext& device() = 0;
  // The PTY stdin is, for `stty`; nullptr when there is none.
  virtual const protocol::WindowSize* terminal() const { return nullptr; }

  void out(std::string_view text) { out(protocol::bytes_of(text)); }
  void err(std::string_view text) { err(protocol::bytes_of(text)); }
};

// What a step achieved.
struct JobStep {
  enum class Kind {
    more,        // call step() again (when io.room() > 0)
    wait_input,  // nothing to do until stdin has data or reaches EOF
    sleep,       // call step() again after `delay`
    done,        // finished with exit_code
  };
  Kind kind = Kind::more;
  int exit_code = 0;
  std::chrono::milliseconds delay{0};

  static JobStep more() { return {Kind::more}; }
  static JobStep wait_input() { return {Kind::wait_input}; }
  static JobStep sleep(std::chrono::milliseconds d) { return {Kind::sleep, 0, d}; }
  static JobStep done(int code) { return {Kind::done, code}; }
};

class Job {
 public:
  virtual ~Job() = default;
  virtual JobStep step(JobIo& io) = 0;
};

// A builtin command: makes the job for argv (argv[0] is the command name).
using BuiltinFactory = std::unique_ptr<Job> (*)(std::vector<std::string> argv);

// The builtin named argv0, or nullptr ("inaccessible or not found").
BuiltinFactory find_builtin(std::string_view name);

// Lookup tables, one per file of commands; find_builtin searches them all.
struct Builtin {
  std::string_view name;
  BuiltinFactory make;
};
std::span<const Builtin> file_builtins();     // shell_commands.cpp: echo, cat, ls, …
std::span<const Builtin> android_builtins();  // shell_commands_android.cpp: getprop, input, …
std::span<const Builtin> system_builtins();   // shell_commands_system.cpp: settings, date, dumpsys

// A job that writes `message` to stderr and exits with `code`: for usage errors found
// while making a job.
std::unique_ptr<Job> error_job(std::string message, int code);

// A job that does all its work in one step (small output).
template <int (*Run)(const std::vector<std::string>&, JobIo&)>
std::unique_ptr<Job> instant(std::vector<std::string> argv) {
  class Instant final : public Job {
   public:
    explicit Instant(std::vector<std::string> a) : argv_(std::move(a)) {}
    JobStep step(JobIo& io) override { return JobStep::done(Run(argv_, io)); }

   private:
    std::vector<std::string> argv_;
  };
  return std::make_unique<Instant>(std::move(argv));
}

// Output held back until the stream has room: lets a job produce fixed-size pieces while
// never writing more than io.room().
class PendingOutput {
 public:
  std::vector<std::uint8_t>& buffer() { return buffer_; }
  bool empty() const { return offset_ == buffer_.size(); }
  // Writes what fits; true when everything was written.
  bool flush(JobIo& io);

 private:
  std::vector<std::uint8_t> buffer_;
  std::size_t offset_ = 0;
};

}  // namespace adbwire::vdevice
