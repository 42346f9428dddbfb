// shell:CMD (raw, stdout and stderr merged, no exit status), shell,v2,…:CMD (shell protocol
// v2: stdin/stdout/stderr/exit packets) and exec:CMD (raw), run by the virtual device shell.
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <string>
#include <vector>

#include "adbwire/protocol/shell_v2.hpp"
#include "vdevice/service.hpp"
#include "vdevice/shell.hpp"

namespace adbwire::vdevice {
namespace {

using protocol::ShellPacketId;

constexpr std::string_view kInteractiveMessage =
    "adbwire virtual device: interactive shells are not supported; pass a command (adb shell "
    "CMD)\n";

class ShellService final : public Service, private ShellOutput {
 public:
  ShellService(ServiceHost& host, std::uint32_t stream, bool v2, std::string_view command)
      : host_(host),
        stream_(stream),
        v2_(v2),
        interactive_(command.empty()),
        script_(command, host.device()),
        timer_(host.executor()) {}

  void start() override {
    if (interactive_) {
      write_stderr({reinterpret_cast<const std::uint8_t*>(kInteractiveMessage.data()),
                    kInteractiveMessage.size()});
      finish(1);
      return;
    }
    pump();
  }

  void on_data(std::span<const std::uint8_t> data) override {
    unacknowledged_ += data.size();
    if (v2_ && !finished_) {
      pieces_.clear();
      if (reader_.feed(data, pieces_)) {
        // A garbled shell stream: adbd drops the stream, not the whole connection.
        finished_ = true;
        host_.session().close_stream(stream_);
        return;
      }
      for (const auto& piece : pieces_) {
        if (piece.id == ShellPacketId::stdin_data) script_.feed_stdin(piece.data);
        if (piece.id == ShellPacketId::close_stdin) script_.close_stdin();
      }
    } else if (!finished_) {
      script_.feed_stdin(data);
    }
    acknowledge_consumed();
    if (waiting_ == Wait::input) pump();
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
  void write_stdout(std::span<const std::uint8_t> bytes) override {
    write(ShellPacketId::stdout_data, bytes);
  }
  void write_stderr(std::span<const std::uint8_t> bytes) override {
    write(ShellPacketId::stderr_data, bytes);
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

  void pump() {
    if (finished_) return;
    waiting_ = Wait::none;
    switch (script_.run(*this)) {
      case ShellScript::State::finished:
        finish(script_.exit_code());
        break;
      case ShellScript::State::blocked:
        waiting_ = Wait::room;
        break;
      case ShellScript::State::needs_input:
        waiting_ = Wait::input;
        break;
      case ShellScript::State::sleeping:
        waiting_ = Wait::timer;
        timer_.expires_after(script_.sleep_duration());
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
    }
    acknowledge_consumed();
  }

  void continue_later() {
    pump();
    host_.wake();
  }

  void finish(int exit_code) {
    finished_ = true;
    if (v2_) {
      std::uint8_t status = static_cast<std::uint8_t>(exit_code);
      packet_.clear();
      protocol::append_shell_packet(packet_, ShellPacketId::exit_status, {&status, 1});
      host_.session().write(stream_, packet_);
    }
    host_.session().close_stream(stream_);
  }

  // The host may send the next WRTE only after our OKAY: acknowledge once every byte of
  // stdin was read by a command, so a slow reader slows the host down.
  void acknowledge_consumed() {
    if (unacknowledged_ > 0 && (finished_ || script_.stdin_buffered() == 0)) {
      host_.session().acknowledge(stream_, unacknowledged_);
      unacknowledged_ = 0;
    }
  }

  ServiceHost& host_;
  std::uint32_t stream_;
  bool v2_;
  bool interactive_;
  ShellScript script_;
  asio::steady_timer timer_;
  protocol::ShellReader reader_;
  std::vector<protocol::ShellPiece> pieces_;
  std::vector<std::uint8_t> packet_;
  std::size_t unacknowledged_ = 0;
  bool finished_ = false;
  Wait waiting_ = Wait::none;
};

}  // namespace

std::shared_ptr<Service> make_shell_service(std::string_view destination, ServiceHost& host,
                                            std::uint32_t stream) {
  if (destination.starts_with("exec:")) {
    return std::make_shared<ShellService>(host, stream, false, destination.substr(5));
  }
  if (!destination.starts_with("shell")) return nullptr;
  std::size_t colon = destination.find(':');
  if (colon == std::string_view::npos) return nullptr;
  std::string_view args = destination.substr(5, colon - 5);
  if (!args.empty() && args[0] != ',') return nullptr;
  // Arguments: v2, raw, pty, TERM=…; only v2 changes what the virtual device does.
  bool v2 = false;
  while (!args.empty()) {
    args.remove_prefix(1);
    std::size_t comma = args.find(',');
    if (args.substr(0, comma) == "v2") v2 = true;
    args = comma == std::string_view::npos ? std::string_view() : args.substr(comma);
  }
  return std::make_shared<ShellService>(host, stream, v2, destination.substr(colon + 1));
}

}  // namespace adbwire::vdevice
