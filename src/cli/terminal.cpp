#include "cli/terminal.hpp"

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <iterator>

namespace adbwire::cli {
namespace {

constexpr int kRestoringSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Read by the signal handler, so plain globals written before the handlers are installed.
int g_fd = -1;
termios g_saved{};
struct sigaction g_previous[std::size(kRestoringSignals)];

void restore_and_die(int signal) {
  ::tcsetattr(g_fd, TCSADRAIN, &g_saved);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

RawTerminal::RawTerminal(int fd) {
  if (g_fd >= 0 || ::isatty(fd) != 1 || ::tcgetattr(fd, &g_saved) != 0) return;
  g_fd = fd;
  owner_ = true;
  struct sigaction action {};
  action.sa_handler = restore_and_die;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
    ::sigaction(kRestoringSignals[i], &action, &g_previous[i]);
  termios raw = g_saved;
  ::cfmakeraw(&raw);
  if (::tcsetattr(fd, TCSADRAIN, &raw) != 0) restore();
}

RawTerminal::~RawTerminal() { restore(); }

void RawTerminal::restore() noexcept {
  if (!owner_) return;
  ::tcsetattr(g_fd, TCSADRAIN, &g_saved);
  for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
    ::sigaction(kRestoringSignals[i], &g_previous[i], nullptr);
  g_fd = -1;
  owner_ = false;
}

std::optional<WindowSize> window_size(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0) return std::nullopt;
  return WindowSize{size.ws_row, size.ws_col, size.ws_xpixel, size.ws_ypixel};
}

}  // namespace adbwire::cli
