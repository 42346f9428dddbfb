#include "cli/shell_input.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "adbwire/error.hpp"
#include "cli/terminal.hpp"

namespace adbwire::cli {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;

// The SIGWINCH handler's pipe; written before the handler is installed.
int g_winch_write = -1;
struct sigaction g_previous_winch {};

void on_winch(int) {
  const int saved = errno;
  const char byte = 0;
  [[maybe_unused]] const auto ignored = ::write(g_winch_write, &byte, 1);
  errno = saved;
}

bool make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) return true;
  fds[0] = fds[1] = -1;
  return false;
}

void close_pipe(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) ::close(fds[i]);
    fds[i] = -1;
  }
}

void drain(int fd) {
  char buffer[64];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

bool EscapeFilter::feed(std::span<const std::uint8_t> typed, std::vector<std::uint8_t>& out) {
  for (const std::uint8_t byte : typed) {
    if (escape_ == 0) {
      out.push_back(byte);
      continue;
    }
    if (byte == escape_) {
      if (state_ == State::start_of_line) {
        state_ = State::in_escape;  // swallowed until we know what follows
        continue;
      }
      state_ = State::mid_flow;
      out.push_back(byte);
      continue;
    }
    if (state_ == State::in_escape) {
      if (byte == '.') return true;
      out.push_back(escape_);  // not an escape sequence after all: cough it up
    }
    out.push_back(byte);
    state_ = byte == '\n' || byte == '\r' ? State::start_of_line : State::mid_flow;
  }
  return false;
}

ShellInput::ShellInput(ShellStream& shell, ShellInputOptions options)
    : shell_(shell), options_(options) {
  if (!make_pipe(stop_pipe_)) throw Error(errc::io_error, "cannot make a pipe for stdin");
  if (options_.window_size && g_winch_write < 0 && make_pipe(winch_pipe_)) {
    g_winch_write = winch_pipe_[1];
    struct sigaction action {};
    action.sa_handler = on_winch;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGWINCH, &action, &g_previous_winch);
  }
  thread_ = std::thread([this] { run(); });
}

ShellInput::~ShellInput() { stop(); }

void ShellInput::stop() noexcept {
  if (!thread_.joinable()) return;
  shell_.close();
  const char byte = 0;
  [[maybe_unused]] const auto ignored = ::write(stop_pipe_[1], &byte, 1);
  thread_.join();
  if (winch_pipe_[1] >= 0) {
    ::sigaction(SIGWINCH, &g_previous_winch, nullptr);
    g_winch_write = -1;
  }
  close_pipe(winch_pipe_);
  close_pipe(stop_pipe_);
}

void ShellInput::run() {
  // A shell in the background reading a terminal gets EIO instead of being stopped (adb too).
  sigset_t ttin;
  sigemptyset(&ttin);
  sigaddset(&ttin, SIGTTIN);
  pthread_sigmask(SIG_BLOCK, &ttin, nullptr);

  std::error_code error;
  const auto send_size = [&] {
    if (const auto size = window_size(options_.fd)) shell_.resize(*size, options_.deadline, error);
  };
  if (winch_pipe_[0] >= 0) send_size();

  EscapeFilter escapes(options_.escape);
  std::vector<std::uint8_t> buffer(kReadSize);
  std::vector<std::uint8_t> out;
  pollfd fds[3] = {
      {stop_pipe_[0], POLLIN, 0}, {winch_pipe_[0], POLLIN, 0}, {options_.fd, POLLIN, 0}};
  if (options_.fd < 0) shell_.close_stdin(options_.deadline, error);
  while (!error) {
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    if (fds[1].revents != 0) {
      drain(winch_pipe_[0]);
      send_size();
    }
    if (fds[2].revents == 0) continue;
    const ssize_t n = ::read(options_.fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      // End of stdin. Only shell protocol v2 can tell the device; on v1 the command keeps its
      // stdin open (adb leaves it so too, rather than lose output by closing the stream).
      shell_.close_stdin(options_.deadline, error);
      fds[2].fd = -1;
      continue;
    }
    out.clear();
    const bool disconnect = escapes.feed({buffer.data(), static_cast<std::size_t>(n)}, out);
    if (!out.empty()) shell_.write_stdin(out, options_.deadline, error);
    if (disconnect) {
      disconnected_ = true;
      shell_.close();
      return;
    }
  }
}

}  // namespace adbwire::cli
