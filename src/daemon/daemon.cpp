#include "daemon/daemon.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <thread>
#include <vector>

#include "adbwire/error.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "base/port.hpp"
#include "base/private_socket.hpp"
#include "base/signal_cleanup.hpp"
#include "daemon/conversation.hpp"
#include "daemon/daemon_protocol.hpp"
#include "daemon/paired_phones.hpp"
#include "daemon/registry.hpp"
#include "daemon/sessions.hpp"
#include "daemon/unix_socket.hpp"

namespace adbwire::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kCheckEvery = 5s;  // how often the daemon checks its socket is still its own
constexpr auto kLockWait = 10s;   // for a client starting a daemon to let go of the lock

void report_ready(int fd, const detail::Failure& failure) {
  if (fd < 0) return;
  std::vector<std::uint8_t> frame;
  if (failure) {
    append_frame(frame, FrameKind::fail, failure_payload(failure.code, failure.detail));
  } else {
    append_frame(frame, FrameKind::okay);
  }
  // A pipe with room for far more than one frame: the write does not block.
  std::span<const std::uint8_t> rest = frame;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the starter stopped waiting: nobody to tell
    rest = rest.subspan(static_cast<std::size_t>(n));
  }
  ::close(fd);
}

// "HOST:PORT" or "[V6]:PORT" split; false when it is not.
bool split_address(std::string_view text, std::string& host, std::uint16_t& port) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view name = text.substr(0, colon);
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']')
    name = name.substr(1, name.size() - 2);
  const auto parsed = detail::parse_listen_port(text.substr(colon + 1));
  if (!parsed || name.empty()) return false;
  host = std::string(name);
  port = *parsed;
  return true;
}

bool is_loopback(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
  }
  return false;
}

// A TCP listener on text; loopback says whether only this machine can reach it, bound what it
// bound (the port chosen for port 0).
int listen_tcp(std::string_view text, bool& loopback, std::string& bound,
               detail::Failure& failure) {
  std::string host;
  std::uint16_t port = 0;
  if (!split_address(text, host, port)) {
    failure.set(errc::invalid_argument,
                "--listen takes HOST:PORT (127.0.0.1:5037, [::1]:5037), "
                "not '" +
                    std::string(text) + "'");
    return -1;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
      error != 0) {
    failure.set(errc::not_found, "cannot resolve '" + host + "': " + ::gai_strerror(error));
    return -1;
  }
  int fd = -1;
  std::string why = "no address";
  for (const addrinfo* at = found; at != nullptr && fd < 0; at = at->ai_next) {
    fd = ::socket(at->ai_family, at->ai_socktype | SOCK_CLOEXEC, at->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, at->ai_addr, at->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
      continue;
    }
    loopback = is_loopback(at->ai_addr);
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      const std::uint16_t port_bound = ntohs(
          address.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port
                                        : reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
      bound = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
              std::to_string(port_bound);
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    failure.set(errno == EADDRINUSE ? errc::busy : errc::io_error,
                "cannot listen on " + std::string(text) + ": " + why);
  }
  return fd;
}

class Daemon {
 public:
  Daemon(const DaemonOptions& options, int unix_listener, int tcp_listener, int signals)
      : options_(options),
        unix_listener_(unix_listener),
        tcp_listener_(tcp_listener),
        signals_(signals),
        wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        registry_(options.device_idle, options.dropped_idle),
        paired_(registry_, KeyOptions{}, options.log),
        sessions_(registry_),
        state_{registry_, sessions_, [this] { stop(); }, stopping_, options.open_wait} {
    struct stat st {};
    if (!options_.socket.empty() && ::stat(options_.socket.c_str(), &st) == 0) {
      device_ = st.st_dev;
      inode_ = st.st_ino;
    }
    detail::MutexLock lock(mutex_);
    last_active_ = Clock::now();
  }

  // Paired phones in Wireless debugging are connected from now on; returns once the first look
  // for them is over, so the first request after ready sees them (adb's server waits for its USB
  // scan the same way before it says it is up).
  void find_paired_phones() {
    paired_.start();
    paired_.wait_first_look(deadline_after(kPairedFirstListen + 2 * kPairedConnectTimeout));
  }

  void run() {
    for (;;) {
      std::vector<pollfd> fds = {{wake_, POLLIN, 0}, {signals_, POLLIN, 0}};
      if (unix_listener_ >= 0) fds.push_back({unix_listener_, POLLIN, 0});
      if (tcp_listener_ >= 0) fds.push_back({tcp_listener_, POLLIN, 0});
      const int ready = ::poll(
          fds.data(), fds.size(),
          static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next_wait()).count()));
      if (ready > 0) {
        for (const pollfd& p : fds) {
          if ((p.revents & POLLIN) == 0) continue;
          if (p.fd == wake_) {
            std::uint64_t count = 0;
            [[maybe_unused]] const ssize_t cleared = ::read(wake_, &count, sizeof count);
          } else if (p.fd == signals_) {
            signalfd_siginfo info{};
            [[maybe_unused]] const ssize_t taken = ::read(signals_, &info, sizeof info);
            stop();
          } else {
            accept_one(p.fd, p.fd == unix_listener_);
          }
        }
      }
      registry_.sweep();
      sessions_.sweep();
      if (stopping()) break;
      if (!still_ours()) break;  // replaced or removed: the path is someone else's now
      if (options_.idle.count() > 0 && idle_for() >= options_.idle) {
        take_down();
        break;
      }
    }
    if (unix_listener_ >= 0) {
      if (stopping() && still_ours()) ::unlink(options_.socket.c_str());
      ::close(unix_listener_);
    }
    if (tcp_listener_ >= 0) ::close(tcp_listener_);
    // Streams of running clients end with their device connections; then they can be waited for.
    paired_.stop();
    registry_.disconnect_all();
    detail::MutexLock lock(mutex_);
    done_.wait(lock.native(), [this]() ADBWIRE_REQUIRES(mutex_) { return active_ == 0; });
    lock.unlock();
    if (wake_ >= 0) ::close(wake_);
  }

 private:
  void stop() {
    stopping_ = true;
    wake();
  }

  bool stopping() const { return stopping_; }

  void wake() {
    if (wake_ < 0) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t woke = ::write(wake_, &one, sizeof one);
  }

  Clock::duration next_wait() {
    detail::MutexLock lock(mutex_);
    if (active_ > 0 || options_.idle.count() == 0) return kCheckEvery;
    const Clock::duration left = options_.idle - (Clock::now() - last_active_);
    return std::clamp<Clock::duration>(left, 1ms, kCheckEvery);
  }

  // How long nothing has kept the daemon busy: no client, no session, no device kept.
  Clock::duration idle_for() {
    if (!sessions_.empty() || registry_.keeps_any()) return Clock::duration::zero();
    detail::MutexLock lock(mutex_);
    return active_ > 0 ? Clock::duration::zero() : Clock::now() - last_active_;
  }

  bool still_ours() const {
    if (options_.socket.empty()) return true;
    struct stat st {};
    return ::lstat(options_.socket.c_str(), &st) == 0 && st.st_dev == device_ &&
           st.st_ino == inode_;
  }

  // Idle: the socket goes first (under the lock a starting client holds, so a daemon it starts
  // never loses its socket to us), then whoever connected before that is still served.
  void take_down() {
    if (unix_listener_ < 0) return;
    detail::Failure failure;
    const int lock = lock_file(options_.lock, deadline_after(kLockWait), failure);
    if (still_ours()) ::unlink(options_.socket.c_str());
    if (lock >= 0) unlock_and_remove(options_.lock, lock);
    for (;;) {
      pollfd p{unix_listener_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) break;
      accept_one(unix_listener_, true);
    }
  }

  void accept_one(int listener, bool local) {
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    if (local &&
        !detail::peer_is_this_user(client)) {  // the folder is 0700; this is the second lock
      ::close(client);
      return;
    }
    if (!local) {
      const int on = 1;
      ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    {
      detail::MutexLock lock(mutex_);
      ++active_;
    }
    std::thread([this, client, local] {
      converse(state_, client, local);
      ::close(client);
      detail::MutexLock lock(mutex_);
      --active_;
      last_active_ = Clock::now();
      done_.notify_all();
      // The idle clock starts now: wake the loop from its wait for busy daemons.
      if (active_ == 0) wake();
    }).detach();
  }

  const DaemonOptions& options_;
  const int unix_listener_;
  const int tcp_listener_;
  const int signals_;
  const int wake_;  // eventfd: a client ended, or stop (-1 if none could be made: 5 s checks)
  dev_t device_ = 0;
  ino_t inode_ = 0;
  std::atomic<bool> stopping_{false};
  Registry registry_;
  PairedPhones paired_;
  Sessions sessions_;
  DaemonState state_;
  detail::Mutex mutex_;
  std::condition_variable done_;
  int active_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  Clock::time_point last_active_ ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace

int serve_daemon(const DaemonOptions& options) {
  // Keep no folder of the caller's busy (a test's temporary folder, a mount).
  [[maybe_unused]] const int ignored = ::chdir("/");
  // SIGINT and SIGTERM end the daemon through its loop (signalfd), never halfway through a
  // reply; blocked before any thread starts, so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  // A file a client passed to be filled past a file-size limit fails that pull (EFBIG), rather
  // than ending the daemon.
  ::signal(SIGXFSZ, SIG_IGN);
  const int signals = ::signalfd(-1, &stop_signals, SFD_CLOEXEC | SFD_NONBLOCK);
  // A recording a session is pulling leaves no temporary file: SIGHUP removes it on the way out;
  // after SIGINT or SIGTERM the pulls fail with their connections (removing their files), and
  // whatever is left is removed once the clients are gone.
  detail::remove_on_signals();

  detail::Failure failure;
  const int unix_listener =
      options.socket.empty() ? -1 : detail::listen_private_socket(options.socket, 64, failure);
  bool loopback = true;
  std::string bound = options.listen;
  const int tcp_listener =
      failure || options.listen.empty() ? -1 : listen_tcp(options.listen, loopback, bound, failure);
  if (failure) {
    report_ready(options.ready_fd, failure);
    if (options.log) options.log("error: " + failure.detail);
    if (unix_listener >= 0) {
      ::unlink(options.socket.c_str());
      ::close(unix_listener);
    }
    if (signals >= 0) ::close(signals);
    return 1;
  }
  Daemon daemon(options, unix_listener, tcp_listener, signals);
  daemon.find_paired_phones();
  report_ready(options.ready_fd, failure);
  if (options.log && tcp_listener >= 0) {
    if (!loopback) {
      options.log("warning: listening on " + bound +
                  ", which other machines can reach: the adb server protocol has no "
                  "authentication, so whoever reaches this port controls every device this "
                  "server holds (as with adb -a)");
    }
    options.log("listening on " + bound + " (adb -P PORT, ADB_SERVER_SOCKET=tcp:HOST:PORT)");
  }
  if (options.log && unix_listener >= 0) options.log("listening on " + options.socket.string());
  daemon.run();
  detail::remove_registered_files();
  if (signals >= 0) ::close(signals);
  return 0;
}

}  // namespace adbwire::daemon
