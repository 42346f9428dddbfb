// shell:CMD (protocol v1: stdout and stderr merged, no exit status), shell,v2,…:CMD (shell
// protocol v2: stdin/stdout/stderr/exit/close-stdin/window-size packets) and exec:CMD (raw),
// run by the virtual device shell. An empty CMD is an interactive shell: with a PTY (v1 always,
// v2 unless "raw") it prompts, echoes and edits lines as Android's mksh on a PTY does.
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"
#include "vdevice/pty_discipline.hpp"
#include "vdevice/service.hpp"
#include "vdevice/shell.hpp"

namespace adbwire::vdevice {
namespace {

using protocol::ShellPacketId;
using Input = PtyDiscipline::Input;

// Input an interactive shell holds for commands not yet reading it (type-ahead); the host is
// acknowledged only below it, so a host that floods stdin waits.
constexpr std::size_t kMaxPendingInput = 64 * 1024;

// What the OPEN asked for, in adbd's terms (daemon/services.cpp ShellService).
struct ShellMode {
  bool v2 = false;   // shell protocol
  bool pty = false;  // a PTY: output processing, and a line discipline on input
};

class ShellService final : public Service, private ShellOutput {
 public:
  ShellService(ServiceHost& host, std::uint32_t stream, ShellMode mode, std::string_view command)
      : host_(host),
        stream_(stream),
        v2_(mode.v2),
        pty_(mode.pty),
        interactive_(command.empty()),
        timer_(host.executor()) {
    if (!interactive_) script_ = std::make_unique<ShellScript>(command, host.device());
  }

  void start() override {
    if (interactive_ && pty_) write_prompt();
    pump();
  }

  void on_data(std::span<const std::uint8_t> data) override {
    unacknowledged_ += data.size();
    if (finished_) {
      acknowledge_consumed();
      return;
    }
    if (!v2_) {
      typed(data);
    } else {
      pieces_.clear();
      if (reader_.feed(data, pieces_)) {
        // A garbled shell stream: adbd drops the stream, not the whole connection.
        finished_ = true;
        host_.session().close_stream(stream_);
        return;
      }
      for (const auto& piece : pieces_) {
        if (finished_) break;
        if (piece.id == ShellPacketId::stdin_data) typed(piece.data);
        // A PTY cannot close only its input, so adbd ignores close-stdin for PTY shells.
        if (piece.id == ShellPacketId::close_stdin && !pty_) deliver({Input::Kind::eof, {}});
        if (piece.id == ShellPacketId::window_size) discipline_.set_size(piece.data);
      }
    }
    if (finished_) return;
    if (waiting_ == Wait::input || waiting_ == Wait::none) pump();
    acknowledge_consumed();
  }

  void resume() override {
    if (waiting_ == Wait::room && room() > 0) pump();
  }

 private:
  enum class Wait { none, room, input, timer, posted };

  std::size_t room() const override {
    std::size_t queued = host_.session().queued(stream_);
    return queued >= kMaxQueued ? 0 : kMaxQueued - queued;
  }
  void write_stdout(std::span<const std::uint8_t> bytes) override { write_output(bytes); }
  // A PTY has one channel: stderr reaches the host as stdout, as on adbd.
  void write_stderr(std::span<const std::uint8_t> bytes) override {
    if (pty_) {
      write_output(bytes);
    } else {
      write(ShellPacketId::stderr_data, bytes);
    }
  }
  const protocol::WindowSize* terminal() const override {
    return pty_ ? &discipline_.size() : nullptr;
  }

  void write_output(std::span<const std::uint8_t> bytes) {
    if (!pty_) {
      write(ShellPacketId::stdout_data, bytes);
      return;
    }
    translated_.clear();
    PtyDiscipline::translate_output(bytes, translated_);
    write(ShellPacketId::stdout_data, translated_);
  }

  void write_raw(std::string_view text) {
    write(ShellPacketId::stdout_data,
          {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  }

  void write(ShellPacketId id, std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return;
    if (v2_) {
      packet_.clear();
      protocol::append_shell_packet(packet_, id, bytes);
      host_.session().write(stream_, packet_);
    } else {
      host_.session().write(stream_, bytes);
    }
  }

  // mksh's prompt for the shell user: "DEVICE:/ $ ".
  void write_prompt() { write_raw(std::string(kProductDevice) + ":/ $ "); }

  // Bytes from the host's stdin: through the PTY's line discipline, or as they are.
  void typed(std::span<const std::uint8_t> bytes) {
    if (!pty_) {
      deliver({Input::Kind::data, std::string(bytes.begin(), bytes.end())});
      return;
    }
    echo_.clear();
    inputs_.clear();
    discipline_.feed(bytes, echo_, inputs_);
    write(ShellPacketId::stdout_data, echo_);
    for (Input& input : inputs_) {
      if (finished_) return;
      deliver(std::move(input));
    }
  }

  void deliver(Input input) {
    if (input.kind == Input::Kind::interrupt) {
      interrupt();
      return;
    }
    if (!interactive_) {
      feed_script(input);
      return;
    }
    pending_bytes_ += input.bytes.size();
    pending_.push_back(std::move(input));
  }

  void feed_script(const Input& input) {
    if (input.kind == Input::Kind::eof) {
      script_->close_stdin();
    } else {
      script_->feed_stdin(
          {reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size()});
    }
  }

  // SIGINT: the foreground command dies with 130; the PTY drops the input typed ahead.
  void interrupt() {
    pending_.clear();
    pending_bytes_ = 0;
    if (!interactive_) {
      finish(130);
      return;
    }
    script_.reset();
    timer_.cancel();
    last_status_ = 130;
    repl_line_.clear();
    write_raw("\r\n");
    write_prompt();
    waiting_ = Wait::none;
  }

  // Interactive: the next complete line becomes a script. False when none is ready (waiting
  // for input) or the shell ended.
  bool next_command() {
    while (!pending_.empty()) {
      Input input = std::move(pending_.front());
      pending_.pop_front();
      pending_bytes_ -= input.bytes.size();
      if (input.kind == Input::Kind::eof) {
        if (!repl_line_.empty()) {
          // sh runs a last line that has no newline, then ends.
          pending_.push_front(std::move(input));
          return start_line(std::exchange(repl_line_, {}));
        }
        if (pty_) write_raw("\r\n");
        finish(last_status_);
        return false;
      }
      repl_line_ += input.bytes;
      const std::size_t newline = repl_line_.find('\n');
      if (newline != std::string::npos) {
        std::string line = repl_line_.substr(0, newline);
        repl_line_.erase(0, newline + 1);
        if (!repl_line_.empty()) {
          pending_bytes_ += repl_line_.size();
          pending_.push_front({Input::Kind::data, std::exchange(repl_line_, {})});
        }
        return start_line(std::move(line));
      }
    }
    return false;
  }

  bool start_line(std::string line) {
    script_ = std::make_unique<ShellScript>(line, host_.device());
    return true;
  }

  // A command of the interactive shell ended.
  void command_done() {
    last_status_ = script_->exit_code();
    const bool exit = script_->exit_requested();
    script_.reset();
    if (exit) {
      finish(last_status_);
    } else if (pty_) {
      write_prompt();
    }
  }

  void pump() {
    if (finished_) return;
    waiting_ = Wait::none;
    for (;;) {
      if (!script_ && (!interactive_ || !next_command())) {
        if (!finished_) waiting_ = Wait::input;
        break;
      }
      const ShellScript::State state = script_->run(*this);
      if (state == ShellScript::State::finished) {
        if (!interactive_) {
          finish(script_->exit_code());
          return;
        }
        command_done();
        if (finished_) return;
        continue;
      }
      if (state == ShellScript::State::needs_input && interactive_ && !pending_.empty()) {
        feed_script(pending_.front());
        pending_bytes_ -= pending_.front().bytes.size();
        pending_.pop_front();
        continue;
      }
      wait_for(state);
      break;
    }
    acknowledge_consumed();
  }

  void wait_for(ShellScript::State state) {
    switch (state) {
      case ShellScript::State::blocked:
        waiting_ = Wait::room;
        break;
      case ShellScript::State::needs_input:
        waiting_ = Wait::input;
        break;
      case ShellScript::State::sleeping:
        waiting_ = Wait::timer;
        timer_.expires_after(script_->sleep_duration());
        timer_.async_wait([weak = weak_from_this()](const std::error_code& error) {
          if (error) return;
          if (auto self = std::static_pointer_cast<ShellService>(weak.lock()))
            self->continue_later();
        });
        break;
      case ShellScript::State::running:
        // A long run of steps (output to a file): let other streams and connections go first.
        waiting_ = Wait::posted;
        asio::post(host_.executor(), [weak = weak_from_this()] {
          if (auto self = std::static_pointer_cast<ShellService>(weak.lock()))
            self->continue_later();
        });
        break;
      case ShellScript::State::finished:
        break;
    }
  }

  void continue_later() {
    pump();
    host_.wake();
  }

  void finish(int exit_code) {
    if (finished_) return;
    finished_ = true;
    timer_.cancel();
    if (v2_) {
      std::uint8_t status = static_cast<std::uint8_t>(exit_code);
      packet_.clear();
      protocol::append_shell_packet(packet_, ShellPacketId::exit_status, {&status, 1});
      host_.session().write(stream_, packet_);
    }
    host_.session().close_stream(stream_);
  }

  // The host may send the next WRTE only after our OKAY: acknowledge once the input was read
  // by a command (or, interactive, is held within kMaxPendingInput), so a slow reader slows
  // the host down.
  void acknowledge_consumed() {
    if (unacknowledged_ == 0) return;
    const std::size_t buffered = script_ ? script_->stdin_buffered() : 0;
    const bool consumed =
        interactive_ ? pending_bytes_ + buffered < kMaxPendingInput : buffered == 0;
    if (finished_ || consumed) {
      host_.session().acknowledge(stream_, unacknowledged_);
      unacknowledged_ = 0;
    }
  }

  ServiceHost& host_;
  std::uint32_t stream_;
  bool v2_;
  bool pty_;
  bool interactive_;
  std::unique_ptr<ShellScript> script_;  // the command line running now
  asio::steady_timer timer_;
  protocol::ShellReader reader_;
  std::vector<protocol::ShellPiece> pieces_;
  std::vector<std::uint8_t> packet_;
  std::vector<std::uint8_t> translated_;
  PtyDiscipline discipline_;
  std::vector<std::uint8_t> echo_;
  std::vector<Input> inputs_;
  std::deque<Input> pending_;  // interactive: input no command has read yet
  std::size_t pending_bytes_ = 0;
  std::string repl_line_;  // interactive: a command line still missing its newline
  int last_status_ = 0;
  std::size_t unacknowledged_ = 0;
  bool finished_ = false;
  Wait waiting_ = Wait::none;
};

}  // namespace

std::shared_ptr<Service> make_shell_service(std::string_view destination, ServiceHost& host,
                                            std::uint32_t stream) {
  if (destination.starts_with("exec:")) {
    return std::make_shared<ShellService>(host, stream, ShellMode{}, destination.substr(5));
  }
  if (!destination.starts_with("shell")) return nullptr;
  std::size_t colon = destination.find(':');
  if (colon == std::string_view::npos) return nullptr;
  std::string_view args = destination.substr(5, colon - 5);
  if (!args.empty() && args[0] != ',') return nullptr;
  const std::string_view command = destination.substr(colon + 1);
  // adbd's defaults: a PTY for an interactive shell, raw for a command; "raw"/"pty" override.
  // TERM=… only matters to programs the virtual device does not have.
  ShellMode mode;
  mode.pty = command.empty();
  while (!args.empty()) {
    args.remove_prefix(1);
    std::size_t comma = args.find(',');
    const std::string_view arg = args.substr(0, comma);
    if (arg == "v2") mode.v2 = true;
    if (arg == "raw") mode.pty = false;
    if (arg == "pty") mode.pty = true;
    args = comma == std::string_view::npos ? std::string_view() : args.substr(comma);
  }
  // Without the shell protocol adbd gives a command a PTY in raw mode (no processing), except
  // before Android 7.0, whose PTY translated output (VirtualDeviceOptions::legacy_pty).
  if (!mode.v2 && !command.empty()) mode.pty = host.device().legacy_pty();
  return std::make_shared<ShellService>(host, stream, mode, command);
}

}  // namespace adbwire::vdevice
