#include "cli/holder/holder_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "adbwire/protocol/banner.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "cli/holder/holder_protocol.hpp"
#include "cli/holder/holder_socket.hpp"
#include "connection/stream_opener.hpp"
#include "connection/target_detail.hpp"

namespace adbwire::cli::holder {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kOpenWait = 30s;     // for the device to open a stream (as command_timeout)
constexpr auto kRequestWait = 30s;  // for a client to say what it wants
constexpr auto kCheckEvery = 5s;    // how often an idle holder checks its socket is still its own
constexpr auto kLockWait = 10s;     // for a client starting a holder to let go of the lock
// A holder whose connection dropped and that nobody asked for this long ends: the device went
// away (a test's virtual device, a phone off the network); the next call starts a new holder.
constexpr auto kDroppedIdle = 60s;
constexpr std::size_t kRelaySize = 256 * 1024;

// Open failures that mean the connection itself is gone (Connection::open hands back the
// connection's failure once it failed), not that this one service could not be opened.
bool connection_lost(const std::error_code& code) {
  return code == errc::device_offline || code == errc::closed || code == errc::protocol_error;
}

BannerRecord record_of(const Device& device) {
  BannerRecord record;
  record.serial = device.serial();
  record.banner = protocol::format_banner(device.banner());
  for (const std::string& feature : device.banner().features) {
    if (device.has_feature(feature)) record.features.push_back(feature);
  }
  return record;
}

void send_frames(int fd, const std::vector<std::uint8_t>& frames) {
  detail::Failure ignored;  // a client that went away has nothing left to be told
  send_all(fd, frames, deadline_after(kRequestWait), ignored);
}

void report_ready(int fd, const detail::Failure& failure) {
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
    if (n <= 0) break;  // the client stopped waiting: nobody to tell
    rest = rest.subspan(static_cast<std::size_t>(n));
  }
  ::close(fd);
}

// The one connection, made again when an open finds it dropped.
class HeldDevice {
 public:
  HeldDevice(std::string target, ConnectOptions options, Device device)
      : target_(std::move(target)),
        options_(std::move(options)),
        device_(std::make_shared<Device>(std::move(device))) {}

  BannerRecord record() { return record_of(*current()); }

  bool connected() { return current()->opener() && current()->opener()->connected(); }

  // Opens service; after a drop, connects again first and adds a note saying so.
  Stream open(std::string_view service, std::vector<std::string>& notes, detail::Failure& failure) {
    std::shared_ptr<Device> device = current();
    std::error_code error;
    Stream stream = device->open(service, deadline_after(kOpenWait), error);
    if (!error) return stream;
    const detail::Failure lost = detail::reported(error);
    if (!connection_lost(lost.code)) {
      failure = lost;
      return {};
    }
    {
      detail::MutexLock lock(mutex_);
      if (device_ == device) {  // nobody connected again since this open began
        Device fresh = Device::connect(target_, options_, error);
        if (error) {
          const detail::Failure why = detail::reported(error);
          failure.set(why.code, "the connection to " + target_ + " dropped (" + lost.detail +
                                    ") and connecting again failed: " + why.detail);
          return {};
        }
        const bool same =
            format_banner_record(record_of(fresh)) == format_banner_record(record_of(*device_));
        device_ = std::make_shared<Device>(std::move(fresh));
        if (!same) {
          failure.set(errc::device_offline,
                      "the connection to " + target_ +
                          " dropped; connected again, but the device there is not the one it "
                          "was (its banner changed): run the command again");
          return {};
        }
      }
      device = device_;
    }
    notes.push_back("reconnected to " + target_ + " (the connection had dropped: " + lost.detail +
                    ")");
    Stream retried = device->open(service, deadline_after(kOpenWait), error);
    if (error) failure = detail::reported(error);
    return retried;
  }

 private:
  std::shared_ptr<Device> current() {
    detail::MutexLock lock(mutex_);
    return device_;
  }

  const std::string target_;
  const ConnectOptions options_;
  detail::Mutex mutex_;
  std::shared_ptr<Device> device_ ADBWIRE_GUARDED_BY(mutex_);
};

// Copies the stream both ways until either side ends it: the client's bytes to the device on a
// thread of their own, the device's to the client as DATA frames here, then DONE or FAIL.
void relay(Stream& stream, int client) {
  std::thread up([&stream, client] {
    std::vector<std::uint8_t> buffer(kRelaySize);
    bool writable = true;
    for (;;) {
      const ssize_t n = ::recv(client, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the client closed (ADB streams have no half-close)
      std::error_code error;
      // After the device ended the stream a write fails; what it sent before (a shell's exit
      // status) is still to be read below, and closing the stream here would drop it.
      if (writable) {
        stream.write(std::span(buffer.data(), static_cast<std::size_t>(n)), kNoDeadline, error);
      }
      writable = writable && !error;
    }
    stream.close();
  });
  std::vector<std::uint8_t> buffer(kRelaySize);
  std::vector<std::uint8_t> frames;
  for (;;) {
    std::error_code error;
    const std::size_t n = stream.read_some(buffer, kNoDeadline, error);
    frames.clear();
    if (error) {
      append_frame(frames, FrameKind::fail, failure_payload(error, last_error_detail()));
    } else if (n == 0) {
      append_frame(frames, FrameKind::done);
    } else {
      append_frame(frames, FrameKind::data, std::span(buffer.data(), n));
    }
    detail::Failure gone;
    if (!send_all(client, frames, kNoDeadline, gone) || error || n == 0) break;
  }
  stream.close();
  ::shutdown(client, SHUT_RDWR);  // ends the reading thread's recv
  up.join();
}

class Holder {
 public:
  Holder(HeldDevice& held, int listener, HolderPaths paths, std::chrono::seconds idle)
      : held_(held),
        listener_(listener),
        paths_(std::move(paths)),
        idle_(idle),
        wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    struct stat st {};
    if (::stat(paths_.socket.c_str(), &st) == 0) {
      device_ = st.st_dev;
      inode_ = st.st_ino;
    }
  }

  void run() {
    {
      detail::MutexLock lock(mutex_);
      last_active_ = Clock::now();
    }
    for (;;) {
      pollfd p[2] = {{listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
      const int ready = ::poll(
          p, wake_ >= 0 ? 2 : 1,
          static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next_wait()).count()));
      if (ready > 0 && (p[1].revents & POLLIN) != 0) {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t cleared = ::read(wake_, &count, sizeof count);
      }
      if (ready > 0 && (p[0].revents & POLLIN) != 0) accept_one();
      if (!still_ours()) break;  // replaced or removed: the path is someone else's now
      const Clock::duration idle = idle_for();
      if (idle >= idle_ || (idle >= kDroppedIdle && !held_.connected())) {
        take_down();
        break;
      }
    }
    ::close(listener_);
    detail::MutexLock lock(mutex_);
    done_.wait(lock.native(), [this]() ADBWIRE_REQUIRES(mutex_) { return active_ == 0; });
    if (wake_ >= 0) ::close(wake_);
  }

 private:
  Clock::duration next_wait() {
    detail::MutexLock lock(mutex_);
    if (active_ > 0) return kCheckEvery;
    const Clock::duration left = idle_ - (Clock::now() - last_active_);
    return std::clamp<Clock::duration>(left, 1ms, kCheckEvery);
  }

  Clock::duration idle_for() {
    detail::MutexLock lock(mutex_);
    return active_ > 0 ? Clock::duration::zero() : Clock::now() - last_active_;
  }

  bool still_ours() const {
    struct stat st {};
    return ::lstat(paths_.socket.c_str(), &st) == 0 && st.st_dev == device_ && st.st_ino == inode_;
  }

  // Idle: the socket goes first (under the lock a starting client holds, so a holder it starts
  // never loses its socket to us), then whoever connected before that is still served.
  void take_down() {
    detail::Failure failure;
    const int lock = lock_file(paths_.lock, deadline_after(kLockWait), failure);
    if (still_ours()) ::unlink(paths_.socket.c_str());
    if (lock >= 0) unlock_and_remove(paths_.lock, lock);
    for (;;) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) break;
      accept_one();
    }
  }

  void accept_one() {
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) return;
    if (peer_uid(client) != ::geteuid()) {  // the folder is 0700; this is the second lock
      ::close(client);
      return;
    }
    {
      detail::MutexLock lock(mutex_);
      ++active_;
    }
    std::thread([this, client] {
      serve(client);
      ::close(client);
      detail::MutexLock lock(mutex_);
      --active_;
      last_active_ = Clock::now();
      done_.notify_all();
      // The idle clock starts now: wake the loop from its wait for busy holders.
      if (active_ == 0 && wake_ >= 0) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t woke = ::write(wake_, &one, sizeof one);
      }
    }).detach();
  }

  void serve(int client) {
    Reader reader;
    std::array<std::uint8_t, 4096> buffer;
    const Deadline deadline = deadline_after(kRequestWait);
    std::vector<std::uint8_t> out;
    for (;;) {
      std::string request;
      const Reader::Result result = reader.next_request(request);
      if (result == Reader::Result::failed) {
        out.clear();
        append_frame(out, FrameKind::fail,
                     failure_payload(make_error_code(errc::protocol_error), reader.error_detail()));
        send_frames(client, out);
        return;
      }
      if (result == Reader::Result::need_more) {
        detail::Failure failure;
        const long n = receive_some(client, buffer, deadline, failure);
        if (n <= 0) return;
        reader.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
        continue;
      }
      out.clear();
      if (request == kBannerRequest) {
        append_frame(out, FrameKind::okay);
        append_frame(out, FrameKind::data, format_banner_record(held_.record()));
        send_frames(client, out);
        continue;
      }
      if (!request.starts_with(kOpenPrefix)) {
        append_frame(out, FrameKind::fail,
                     failure_payload(make_error_code(errc::invalid_argument),
                                     "the connection holder knows no request '" + request + "'"));
        send_frames(client, out);
        return;
      }
      std::vector<std::string> notes;
      detail::Failure failure;
      Stream stream = held_.open(request.substr(kOpenPrefix.size()), notes, failure);
      for (const std::string& note : notes) append_frame(out, FrameKind::note, note);
      if (failure) {
        append_frame(out, FrameKind::fail, failure_payload(failure.code, failure.detail));
        send_frames(client, out);
        return;
      }
      append_frame(out, FrameKind::okay);
      send_frames(client, out);
      if (const auto early = reader.unread(); !early.empty()) {
        std::error_code error;
        stream.write(early, kNoDeadline, error);
      }
      relay(stream, client);
      return;
    }
  }

  HeldDevice& held_;
  const int listener_;
  const HolderPaths paths_;
  const std::chrono::seconds idle_;
  const int wake_;  // eventfd: a client ended (-1 if none could be made: then checks every 5 s)
  dev_t device_ = 0;
  ino_t inode_ = 0;
  detail::Mutex mutex_;
  std::condition_variable done_;
  int active_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  Clock::time_point last_active_ ADBWIRE_GUARDED_BY(mutex_);
};

}  // namespace

int serve_holder(const HolderOptions& options) {
  // Keep no folder of the caller's busy (a test's temporary folder, a mount).
  [[maybe_unused]] const int ignored = ::chdir("/");
  detail::Failure failure;
  std::error_code error;
  const Target target = Target::parse(options.target, error);
  Device device(nullptr, {});
  if (error) {
    failure.set(error, detail::target_error_detail(options.target));
  } else {
    device = Device::connect(options.target, options.connect, error);
    if (error) failure = detail::reported(error);
  }
  HolderPaths paths;
  if (!failure) paths = holder_paths(holder_identity(target, "/proc/self/exe"), failure);
  const int listener = failure ? -1 : listen_at(paths.socket, failure);
  report_ready(options.ready_fd, failure);
  if (failure) return 1;
  HeldDevice held(target.to_string(), options.connect, std::move(device));
  Holder(held, listener, std::move(paths), options.idle).run();
  return 0;
}

}  // namespace adbwire::cli::holder
