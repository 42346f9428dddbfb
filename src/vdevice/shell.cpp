#include "vdevice/shell.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "adbwire/protocol/bytes.hpp"
#include "base/number.hpp"
#include "vdevice/hostile_output.hpp"

namespace adbwire::vdevice {
namespace {

constexpr std::string_view kShellName = "/system/bin/sh: ";

}  // namespace

// Descriptors 0, 1, 2 of one command after its redirects.
class ShellScript::CommandIo final : public JobIo {
 public:
  enum class Target { script, null, file };

  CommandIo(ShellScript& script, ShellOutput& output) : script_(script), output_(&output) {
    fds_[1].script_fd = 1;
    fds_[2].script_fd = 2;
  }

  void set_output(ShellOutput& output) { output_ = &output; }

  // Applies one redirect; on failure returns the message sh prints (without its prefix).
  std::string apply(const ShellRedirect& r) {
    if (r.fd < 0 || r.fd > 2)
      return std::to_string(r.fd) + ": descriptors above 2 are not supported";
    if (r.kind == ShellToken::Redirect::duplicate) {
      if (r.target_fd < 0 || r.target_fd > 2)
        return std::to_string(r.target_fd) + ": bad file descriptor";
      fds_[r.fd] = fds_[r.target_fd];
      return {};
    }
    Fd fd;
    if (r.path == "/dev/null") {
      fd.target = Target::null;
      fds_[r.fd] = fd;
      return {};
    }
    std::error_code error;
    auto host = script_.device_.resolve(r.path, error);
    if (error) return "can't open " + r.path + ": Permission denied";
    if (std::filesystem::is_directory(host)) return "can't create " + r.path + ": Is a directory";
    fd.target = Target::file;
    if (r.kind == ShellToken::Redirect::read) {
      auto in = std::make_shared<std::ifstream>(host, std::ios::binary);
      if (!*in) return "can't open " + r.path + ": No such file or directory";
      fd.in = std::move(in);
    } else {
      auto mode = std::ios::binary |
                  (r.kind == ShellToken::Redirect::append ? std::ios::app : std::ios::trunc);
      auto out = std::make_shared<std::ofstream>(host, mode);
      if (!*out) {
        bool parent = std::filesystem::is_directory(host.parent_path());
        return "can't create " + r.path +
               (parent ? ": Permission denied" : ": No such file or directory");
      }
      fd.out = std::move(out);
    }
    fds_[r.fd] = std::move(fd);
    return {};
  }

  std::size_t room() const override {
    bool to_stream = fds_[1].target == Target::script || fds_[2].target == Target::script;
    return to_stream ? output_->room() : kChunk;
  }
  void out(std::span<const std::uint8_t> bytes) override { write(fds_[1], bytes); }
  void err(std::span<const std::uint8_t> bytes) override { write(fds_[2], bytes); }
  using JobIo::err;
  using JobIo::out;

  std::size_t read_stdin(std::span<std::uint8_t> into) override {
    const Fd& fd = fds_[0];
    if (fd.target == Target::null) return 0;
    if (fd.in) {
      fd.in->read(reinterpret_cast<char*>(into.data()), static_cast<std::streamsize>(into.size()));
      return static_cast<std::size_t>(fd.in->gcount());
    }
    std::size_t n = std::min(into.size(), script_.stdin_buffered());
    if (n == 0) return 0;
    std::memcpy(into.data(), script_.stdin_.data() + script_.stdin_offset_, n);
    script_.stdin_offset_ += n;
    if (script_.stdin_offset_ == script_.stdin_.size()) {
      script_.stdin_.clear();
      script_.stdin_offset_ = 0;
    }
    return n;
  }

  bool stdin_eof() const override {
    const Fd& fd = fds_[0];
    if (fd.target == Target::null) return true;
    if (fd.in) return !fd.in->good();
    return script_.stdin_eof_ && script_.stdin_buffered() == 0;
  }

  DeviceContext& device() override { return script_.device_; }
  const protocol::WindowSize* terminal() const override {
    return fds_[0].target == Target::script ? output_->terminal() : nullptr;
  }

 private:
  struct Fd {
    Target target = Target::script;
    int script_fd = 0;  // Target::script: which of the script's streams
    std::shared_ptr<std::ifstream> in;
    std::shared_ptr<std::ofstream> out;
  };

  void write(const Fd& fd, std::span<const std::uint8_t> bytes) {
    switch (fd.target) {
      case Target::script:
        if (fd.script_fd == 2) {
          output_->write_stderr(bytes);
        } else {
          output_->write_stdout(bytes);
        }
        break;
      case Target::file:
        if (fd.out)
          fd.out->write(reinterpret_cast<const char*>(bytes.data()),
                        static_cast<std::streamsize>(bytes.size()));
        break;
      case Target::null:
        break;
    }
  }

  ShellScript& script_;
  ShellOutput* output_;
  Fd fds_[3];
};

ShellScript::ShellScript(std::string_view text, DeviceContext& device) : device_(device) {
  if (!parse_shell(text, commands_, syntax_error_)) {
    commands_.clear();
    device_.note_syntax_error(text);
  }
}

ShellScript::~ShellScript() = default;

void ShellScript::feed_stdin(std::span<const std::uint8_t> bytes) {
  if (stdin_offset_ > 0) {
    stdin_.erase(stdin_.begin(), stdin_.begin() + static_cast<std::ptrdiff_t>(stdin_offset_));
    stdin_offset_ = 0;
  }
  stdin_.insert(stdin_.end(), bytes.begin(), bytes.end());
}

bool ShellScript::start_command(ShellOutput& output) {
  ShellCommand& command = commands_[next_++];
  if ((command.connector == ShellCommand::Connector::and_then && exit_code_ != 0) ||
      (command.connector == ShellCommand::Connector::or_else && exit_code_ == 0)) {
    return false;
  }
  auto io = std::make_unique<CommandIo>(*this, output);
  for (const ShellRedirect& redirect : command.redirects) {
    std::string failure = io->apply(redirect);
    if (!failure.empty()) {
      std::string line = std::string(kShellName) + failure + "\n";
      output.write_stderr(protocol::bytes_of(line));
      exit_code_ = 1;
      return false;
    }
  }
  if (command.argv.empty()) {
    exit_code_ = 0;
    return false;
  }
  const std::string& name = command.argv[0];
  if (name == "exit") {
    if (command.argv.size() > 1) {
      const std::string& arg = command.argv[1];
      const std::optional<int> code = detail::parse_number<int>(arg);
      if (!code) io->err(std::string(kShellName) + "exit: " + arg + ": bad number\n");
      exit_code_ = code.value_or(2) & 0xff;
    }
    exit_requested_ = true;
    return false;
  }
  // adb's logcat runs `export ANDROID_LOG_TAGS=""; exec logcat …`. The virtual shell keeps no
  // variables (every parameter expands to nothing), so export has nothing to set; exec runs its
  // command as the shell's last.
  if (name == "export") {
    exit_code_ = 0;
    return false;
  }
  if (name == "exec") {
    command.argv.erase(command.argv.begin());
    exit_requested_ = true;
    if (command.argv.empty()) return false;
  }
  if (std::unique_ptr<Job> hostile = hostile_job(device_.hostile_output(), command.argv)) {
    job_ = std::move(hostile);
    io_ = std::move(io);
    return true;
  }
  const std::string& program = command.argv[0];
  BuiltinFactory make = device_.lacks_command(program) ? nullptr : find_builtin(program);
  if (make == nullptr) {
    io->err(std::string(kShellName) + program + ": inaccessible or not found\n");
    exit_code_ = 127;
    return false;
  }
  job_ = make(std::move(command.argv));
  io_ = std::move(io);
  return true;
}

void ShellScript::finish_command(int exit_code) {
  exit_code_ = exit_code;
  job_.reset();
  io_.reset();
}

ShellScript::State ShellScript::run(ShellOutput& output, int max_steps) {
  for (int steps = 0; steps < max_steps; ++steps) {
    if (finished_) return State::finished;
    if (!job_) {
      if (!syntax_error_.empty()) {
        std::string line = std::string(kShellName) + syntax_error_ + "\n";
        output.write_stderr(protocol::bytes_of(line));
        syntax_error_.clear();
        exit_code_ = 2;
        finished_ = true;
        continue;
      }
      if (exit_requested_ || next_ >= commands_.size()) {
        finished_ = true;
        continue;
      }
      if (!start_command(output)) continue;
    }
    io_->set_output(output);
    if (io_->room() == 0) return State::blocked;
    JobStep step = job_->step(*io_);
    switch (step.kind) {
      case JobStep::Kind::done:
        finish_command(step.exit_code);
        break;
      case JobStep::Kind::more:
        break;
      case JobStep::Kind::wait_input:
        return State::needs_input;
      case JobStep::Kind::sleep:
        sleep_ = step.delay;
        return State::sleeping;
    }
  }
  return finished_ ? State::finished : State::running;
}

}  // namespace adbwire::vdevice
