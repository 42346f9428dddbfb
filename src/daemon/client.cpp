#include "daemon/client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/smart_socket.hpp"
#include "daemon/record_opener.hpp"

namespace adbwire::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::size_t kReceiveSize = 256 * 1024;
// The daemon answers a request at once (it waits on a device only for a connect or an open,
// which the caller's deadline covers); this bounds the wait for a daemon that stopped answering.
constexpr auto kAnswerWait = 30s;
constexpr auto kReadyWait = 10s;  // for a daemon just started to listen
// How often a pull into a file shows its progress while the daemon fills it.
constexpr auto kWaitTick = 100ms;

// One stream the daemon relays: our writes go to the device as they are, its bytes come back as
// DATA frames ending in DONE (or FAIL when the connection failed under it).
class DaemonStream final : public StreamBackend {
 public:
  DaemonStream(int fd, FrameReader reader, NoteHandler on_note)
      : fd_(fd), reader_(std::move(reader)), on_note_(std::move(on_note)) {}
  ~DaemonStream() override { ::close(fd_); }

  // Fills buffer from as many DATA frames as have arrived (a sync reader then parses whole
  // chunks, not pieces cut at frame bounds); waits only while it has nothing to return.
  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure) override {
    std::size_t copied = 0;
    for (;;) {
      if (closed_) {
        failure.set(errc::closed, "the stream was closed");
        return 0;
      }
      if (!pending_.empty()) {
        const std::size_t n = std::min(buffer.size() - copied, pending_.size());
        std::copy_n(pending_.begin(), n, buffer.begin() + static_cast<std::ptrdiff_t>(copied));
        pending_ = pending_.subspan(n);
        copied += n;
        if (copied == buffer.size()) return copied;
        continue;
      }
      if (ended_ || (failed_ && copied > 0)) return copied;
      if (failed_) {
        failure = failed_with_;
        return 0;
      }
      FrameReader::Frame frame;
      switch (reader_.next(frame)) {
        case FrameReader::Result::ready:
          take(frame);
          continue;
        case FrameReader::Result::failed:
          fail(errc::protocol_error, reader_.error_detail());
          continue;
        case FrameReader::Result::need_more:
          break;
      }
      if (copied > 0) return copied;
      // Received straight into the frame reader's buffer: no copy on the way in.
      const long n = receive_some(fd_, reader_.prepare(kReceiveSize), deadline, failure);
      if (n < 0) {
        reader_.commit(0);
        if (closed_) failure.set(errc::closed, "the stream was closed");
        return 0;
      }
      reader_.commit(static_cast<std::size_t>(n));
      if (n == 0) {
        fail(errc::device_offline,
             "the adbwire daemon ended the stream without a word (was it stopped?)");
        continue;
      }
    }
  }

  void write(std::span<const std::uint8_t> data, Deadline deadline,
             detail::Failure& failure) override {
    if (closed_) {
      failure.set(errc::closed, "the stream was closed");
      return;
    }
    if (!send_all(fd_, data, deadline, failure) && failure.code == errc::closed)
      failure.detail = "the device ended the stream";
  }

  void close() noexcept override {
    if (closed_.exchange(true)) return;
    ::shutdown(fd_, SHUT_RDWR);  // wakes a reader or writer waiting on the socket
  }

  bool is_open() const noexcept override { return !closed_ && !ended_ && !failed_; }

 private:
  void take(const FrameReader::Frame& frame) {
    switch (frame.kind) {
      case FrameKind::data:
        pending_ = frame.payload;
        break;
      case FrameKind::done:
        ended_ = true;
        break;
      case FrameKind::note:
        if (on_note_) on_note_(frame.text());
        break;
      case FrameKind::fail: {
        std::error_code code;
        std::string detail;
        parse_failure(frame.text(), code, detail);
        failed_with_.set(code, std::move(detail));
        failed_ = true;
        break;
      }
      case FrameKind::okay:
        fail(errc::protocol_error, "the adbwire daemon sent OKAY inside a stream");
        break;
    }
  }

  void fail(errc code, std::string detail) {
    failed_with_.set(code, std::move(detail));
    failed_ = true;
  }

  const int fd_;
  std::atomic<bool> closed_{false};
  // The reading side's (one reader at a time, as Stream allows).
  FrameReader reader_;
  std::span<const std::uint8_t> pending_;  // the rest of the last DATA frame, inside reader_
  std::atomic<bool> ended_{false};
  std::atomic<bool> failed_{false};
  detail::Failure failed_with_;
  NoteHandler on_note_;
};

class DaemonOpener final : public RecordOpener {
 public:
  DaemonOpener(fs::path socket, std::string request, std::string target, BannerRecord record,
               int spare, NoteHandler on_note)
      : RecordOpener(std::move(target), std::move(record)),
        socket_(std::move(socket)),
        request_(std::move(request)),
        spare_(spare),
        on_note_(std::move(on_note)) {}
  ~DaemonOpener() override { close(); }

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override {
    if (closed_) {
      failure.set(errc::closed, "the connection to " + target_ + " was closed");
      return nullptr;
    }
    int fd = spare_.exchange(-1);
    const bool fresh = fd < 0;
    if (fresh) fd = connect_daemon(socket_, failure);
    if (fd < 0) {
      if (!failure) {
        failure.set(errc::device_offline, "the adbwire daemon has ended; run the command again");
      }
      return nullptr;
    }
    // A new connection switches to the device first; both requests go at once.
    std::vector<std::uint8_t> out;
    if (fresh) protocol::append_smart_request(out, request_);
    if (protocol::append_smart_request(out, service)) {
      ::close(fd);
      failure.set(errc::invalid_argument, "a service name longer than 65535 bytes");
      return nullptr;
    }
    FrameReader reader;
    std::string record;
    BannerRecord now;
    const bool opened = send_all(fd, out, deadline, failure) &&
                        (!fresh || read_answer(fd, reader, deadline, on_note_, &record, failure)) &&
                        read_answer(fd, reader, deadline, on_note_, nullptr, failure);
    if (opened && fresh &&
        (parse_banner_record(record, now) ||
         format_banner_record(now) != format_banner_record(record_))) {
      failure.set(errc::device_offline,
                  "the device at " + target_ +
                      " is not the one this command started with (its banner changed): run the "
                      "command again");
    }
    if (!opened || failure) {
      ::close(fd);
      return nullptr;
    }
    return std::make_unique<DaemonStream>(fd, std::move(reader), on_note_);
  }

  void close() noexcept override {
    closed_ = true;
    if (const int fd = spare_.exchange(-1); fd >= 0) ::close(fd);
  }

 private:
  const fs::path socket_;
  const std::string request_;  // the device request, for each new connection
  std::atomic<int> spare_;     // the connection the banner came on, already switched, for one open
  std::atomic<bool> closed_{false};
  const NoteHandler on_note_;
};

// Starts `program server --idle N --open-wait N --ready-fd 3` as a daemon (its own session, stdio
// on /dev/null, no descriptor of ours but the ready pipe as fd 3) and waits for its OKAY or FAIL.
void start_daemon(const DaemonStart& start, detail::Failure& failure) {
  std::vector<std::string> words = {start.program.string(),
                                    "server",
                                    "--idle",
                                    std::to_string(start.idle.count()),
                                    "--open-wait",
                                    std::to_string(start.open_wait.count()),
                                    "--ready-fd",
                                    "3"};
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    failure.set(errc::io_error, std::string("cannot make a pipe: ") + std::strerror(errno));
    return;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    failure.set(errc::io_error, "cannot start the adbwire daemon (fork failed)");
    return;
  }
  if (child == 0) {
    // Parented by init once this child exits; no terminal, so a Ctrl-C for us is not for it.
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    if (ready[1] == 3) {
      ::fcntl(3, F_SETFD, 0);
    } else if (::dup2(ready[1], 3) != 3) {
      ::_exit(127);
    }
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close_range(4, ~0U, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(ready[1]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  FrameReader reader;
  detail::Failure why;
  if (!read_answer(ready[0], reader, deadline_after(kReadyWait), {}, nullptr, why)) {
    if (why.code == errc::timeout) {
      why.detail = "the adbwire daemon " + start.program.string() + " was not ready within " +
                   std::to_string(std::chrono::seconds(kReadyWait).count()) + " s";
    } else if (why.code == errc::device_offline) {
      why.set(errc::io_error, "the adbwire daemon " + start.program.string() +
                                  " ended before it was ready; run `" + start.program.string() +
                                  " server` to see why, or run with --no-daemon");
    }
    failure = std::move(why);
  }
  ::close(ready[0]);
}

}  // namespace

int reach_daemon(const fs::path& program, const DaemonStart* start, detail::Failure& failure,
                 bool* started) {
  if (started != nullptr) *started = false;
  const DaemonPaths paths = daemon_paths(daemon_identity(program), failure);
  if (failure) return -1;
  int fd = connect_daemon(paths.socket, failure);
  if (fd >= 0 || failure || start == nullptr) return fd;
  const int lock = lock_file(paths.lock, deadline_after(kReadyWait + 5s), failure);
  if (lock < 0) return -1;
  fd = connect_daemon(paths.socket, failure);  // another call may have started it meanwhile
  if (fd < 0 && !failure) {
    start_daemon(*start, failure);
    if (started != nullptr) *started = !failure;
    if (!failure) fd = connect_daemon(paths.socket, failure);
    if (fd < 0 && !failure) {
      failure.set(errc::io_error,
                  "the adbwire daemon started but does not answer at " + paths.socket.string());
    }
  }
  // A running daemon removes the lock file when it ends; with none running, we do.
  if (fd < 0) {
    unlock_and_remove(paths.lock, lock);
  } else {
    ::close(lock);
  }
  return fd;
}

bool send_request(int fd, std::string_view request, Deadline deadline, detail::Failure& failure) {
  std::vector<std::uint8_t> out;
  if (protocol::append_smart_request(out, request)) {
    failure.set(errc::invalid_argument, "a request longer than 65535 bytes");
    return false;
  }
  return send_all(fd, out, deadline, failure);
}

bool read_answer(int fd, FrameReader& reader, Deadline deadline, const NoteHandler& on_note,
                 std::string* data, detail::Failure& failure) {
  std::array<std::uint8_t, 4096> buffer;
  bool okay = false;
  for (;;) {
    FrameReader::Frame frame;
    switch (reader.next(frame)) {
      case FrameReader::Result::ready:
        if (!okay && frame.kind == FrameKind::okay) {
          okay = true;
          if (data == nullptr) return true;
          continue;
        }
        if (okay && frame.kind == FrameKind::data) {
          data->append(frame.text());
          continue;
        }
        if (okay && frame.kind == FrameKind::done) return true;
        if (!okay && frame.kind == FrameKind::note) {
          if (on_note) on_note(frame.text());
          continue;
        }
        if (!okay && frame.kind == FrameKind::fail) {
          std::error_code code;
          std::string detail;
          parse_failure(frame.text(), code, detail);
          failure.set(code, std::move(detail));
          return false;
        }
        failure.set(errc::protocol_error, "the adbwire daemon answered out of turn");
        return false;
      case FrameReader::Result::failed:
        failure.set(errc::protocol_error, reader.error_detail());
        return false;
      case FrameReader::Result::need_more:
        break;
    }
    const long n = receive_some(fd, buffer, deadline, failure);
    if (n < 0) return false;
    if (n == 0) {
      failure.set(errc::device_offline, "the adbwire daemon hung up; run the command again");
      return false;
    }
    reader.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
  }
}

namespace {

// A connection to the daemon switched to target's device (the device request answered), or -1
// with failure.
int device_connection(std::string_view target, const DaemonStart& start,
                      std::chrono::milliseconds auth_timeout, const NoteHandler& on_note,
                      BannerRecord& record, detail::Failure& failure) {
  const int fd = reach_daemon(start.program, &start, failure);
  if (failure) return -1;
  // The daemon may connect first: as long as a direct connect could take, a person's key
  // acceptance included.
  const Deadline deadline =
      deadline_after(kAnswerWait + ConnectOptions{}.connect_timeout + auth_timeout);
  FrameReader reader;
  std::string text;
  if (send_request(fd, device_request(target, auth_timeout), deadline, failure) &&
      read_answer(fd, reader, deadline, on_note, &text, failure) &&
      parse_banner_record(text, record)) {
    failure.set(errc::protocol_error, "the adbwire daemon sent a malformed banner");
  }
  if (failure) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

Device connect_through_daemon(std::string_view target, const DaemonStart& start,
                              std::chrono::milliseconds auth_timeout, const OutputLimits& limits,
                              NoteHandler on_note) {
  detail::Failure failure;
  const DaemonPaths paths = daemon_paths(daemon_identity(start.program), failure);
  failure.throw_if_failed();
  BannerRecord record;
  const int fd = device_connection(target, start, auth_timeout, on_note, record, failure);
  failure.throw_if_failed();
  auto opener = std::make_shared<DaemonOpener>(paths.socket, device_request(target, auth_timeout),
                                               std::string(target), std::move(record), fd,
                                               std::move(on_note));
  return Device(std::move(opener), ConnectOptions{}.command_timeout, limits);
}

DescriptorClient::DescriptorClient(std::string_view target, const DaemonStart& start,
                                   std::chrono::milliseconds auth_timeout, NoteHandler on_note)
    : on_note_(std::move(on_note)) {
  detail::Failure failure;
  BannerRecord record;
  fd_ = device_connection(target, start, auth_timeout, on_note_, record, failure);
  failure.throw_if_failed();
}

DescriptorClient::~DescriptorClient() { ::close(fd_); }

bool DescriptorClient::pull(const PullInto& pull, int file, const std::function<void()>& on_wait,
                            std::uint64_t& bytes, std::uint64_t& wire_bytes,
                            detail::Failure& failure) {
  return transfer(format_pull_into(pull), file, on_wait, bytes, wire_bytes, failure);
}

bool DescriptorClient::push(const PushFrom& push, int file, const std::function<void()>& on_wait,
                            std::uint64_t& bytes, std::uint64_t& wire_bytes,
                            detail::Failure& failure) {
  return transfer(format_push_from(push), file, on_wait, bytes, wire_bytes, failure);
}

bool DescriptorClient::transfer(const std::string& request, int file,
                                const std::function<void()>& on_wait, std::uint64_t& bytes,
                                std::uint64_t& wire_bytes, detail::Failure& failure) {
  std::vector<std::uint8_t> out;
  if (protocol::append_smart_request(out, request)) {
    failure.set(errc::invalid_argument, "a request longer than 65535 bytes");
    return false;
  }
  if (!send_with_descriptor(fd_, out, file, deadline_after(kAnswerWait), failure)) return false;
  // The daemon answers when the file is in; it watches the device's stalls and deadline itself.
  while (reader_.unread().empty() && !wait_ready(fd_, POLLIN, deadline_after(kWaitTick))) {
    if (on_wait) on_wait();
  }
  std::string text;
  if (!read_answer(fd_, reader_, deadline_after(kAnswerWait), on_note_, &text, failure))
    return false;
  const std::size_t space = text.find(' ');
  const auto number = [](std::string_view digits, std::uint64_t& value) {
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  };
  if (space == std::string::npos || !number(std::string_view(text).substr(0, space), bytes) ||
      !number(std::string_view(text).substr(space + 1), wire_bytes)) {
    failure.set(errc::protocol_error,
                "the adbwire daemon answered a file transfer with a malformed count");
    return false;
  }
  return true;
}

bool ask_daemon(const fs::path& program, const DaemonStart* start, std::string_view request,
                Deadline deadline, std::string& reply, detail::Failure& failure, bool* started) {
  const int fd = reach_daemon(program, start, failure, started);
  if (fd < 0) return false;
  protocol::SmartReplyReader reader;
  protocol::SmartStatus status;
  bool have_status = false;
  bool done = false;
  if (send_request(fd, request, deadline, failure)) {
    std::array<std::uint8_t, 4096> buffer;
    while (!done) {
      const auto result = have_status ? reader.read_string(reply) : reader.read_status(status);
      if (result == protocol::SmartReplyReader::Result::failed) {
        failure.set(errc::protocol_error, "the adbwire daemon: " + reader.error_detail());
        break;
      }
      if (result == protocol::SmartReplyReader::Result::ready) {
        if (have_status || !status.okay) {
          done = true;
          if (!status.okay) failure.set(protocol::classify_failure(status.message), status.message);
        }
        have_status = true;
        continue;
      }
      const long n = receive_some(fd, buffer, deadline, failure);
      if (n < 0) break;
      if (n == 0) {
        failure.set(errc::device_offline, "the adbwire daemon hung up before it answered");
        break;
      }
      reader.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
    }
  }
  ::close(fd);
  return !failure;
}

bool stop_daemon(const fs::path& program) {
  detail::Failure failure;
  const DaemonPaths paths = daemon_paths(daemon_identity(program), failure);
  failure.throw_if_failed();
  return stop_daemon_at(paths.socket);
}

bool stop_daemon_at(const fs::path& socket) {
  detail::Failure failure;
  const int fd = connect_daemon(socket, failure);
  failure.throw_if_failed();
  if (fd < 0) return false;
  std::vector<std::uint8_t> out;
  protocol::append_smart_request(out, "host:kill");
  const Deadline deadline = deadline_after(kReadyWait);
  std::array<std::uint8_t, 64> buffer;
  // OKAY, then the daemon closes every connection as it ends.
  if (send_all(fd, out, deadline, failure)) {
    while (receive_some(fd, buffer, deadline, failure) > 0) {
    }
  }
  ::close(fd);
  while (Clock::now() < deadline) {
    std::error_code error;
    if (!fs::exists(fs::symlink_status(socket, error))) return true;
    std::this_thread::sleep_for(10ms);
  }
  throw Error(errc::timeout,
              "the adbwire daemon at " + socket.string() + " did not end within 10 s of host:kill");
}

}  // namespace adbwire::daemon
