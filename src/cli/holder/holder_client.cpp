#include "cli/holder/holder_client.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "adbwire/error.hpp"
#include "adbwire/protocol/banner.hpp"
#include "cli/holder/holder_protocol.hpp"
#include "cli/holder/holder_socket.hpp"
#include "connection/stream_opener.hpp"

namespace adbwire::cli::holder {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::size_t kReceiveSize = 256 * 1024;
// The holder answers a request at once (it only waits on the device for an open, which the
// caller's deadline covers); this bounds the wait for a holder that stopped answering.
constexpr auto kAnswerWait = 30s;

// Reads frames until OKAY (true) or FAIL (false, failure set), passing NOTEs to on_note.
bool read_status(int fd, Reader& reader, Deadline deadline, const NoteHandler& on_note,
                 std::string_view what, detail::Failure& failure) {
  std::array<std::uint8_t, 4096> buffer;
  for (;;) {
    Reader::Frame frame;
    switch (reader.next_frame(frame)) {
      case Reader::Result::ready:
        if (frame.kind == FrameKind::okay) return true;
        if (frame.kind == FrameKind::note) {
          if (on_note) on_note(frame.text());
          continue;
        }
        if (frame.kind == FrameKind::fail) {
          std::error_code code;
          std::string detail;
          parse_failure(frame.text(), code, detail);
          failure.set(code, std::move(detail));
          return false;
        }
        failure.set(errc::protocol_error,
                    "the connection holder answered " + std::string(what) + " out of turn");
        return false;
      case Reader::Result::failed:
        failure.set(errc::protocol_error, reader.error_detail());
        return false;
      case Reader::Result::need_more:
        break;
    }
    const long n = receive_some(fd, buffer, deadline, failure);
    if (n < 0) return false;
    if (n == 0) {
      failure.set(errc::device_offline, "the connection holder hung up on " + std::string(what) +
                                            "; run the command again");
      return false;
    }
    reader.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
  }
}

bool send_request(int fd, std::string_view request, Deadline deadline, detail::Failure& failure) {
  std::vector<std::uint8_t> out;
  if (append_request(out, request)) {
    failure.set(errc::invalid_argument, "a service name longer than 65535 bytes");
    return false;
  }
  return send_all(fd, out, deadline, failure);
}

// One stream the holder relays: our writes go to the device as they are, its bytes come back as
// DATA frames ending in DONE (or FAIL when the connection failed under it).
class HolderStream final : public StreamBackend {
 public:
  HolderStream(int fd, Reader reader, NoteHandler on_note)
      : fd_(fd), reader_(std::move(reader)), on_note_(std::move(on_note)) {}
  ~HolderStream() override { ::close(fd_); }

  std::size_t read_some(std::span<std::uint8_t> buffer, Deadline deadline,
                        detail::Failure& failure) override {
    for (;;) {
      if (closed_) {
        failure.set(errc::closed, "the stream was closed");
        return 0;
      }
      if (!pending_.empty()) {
        const std::size_t n = std::min(buffer.size(), pending_.size());
        std::copy_n(pending_.begin(), n, buffer.begin());
        pending_ = pending_.subspan(n);
        return n;
      }
      if (ended_) return 0;
      if (failed_) {
        failure = failed_with_;
        return 0;
      }
      Reader::Frame frame;
      switch (reader_.next_frame(frame)) {
        case Reader::Result::ready:
          take(frame);
          continue;
        case Reader::Result::failed:
          fail(errc::protocol_error, reader_.error_detail());
          continue;
        case Reader::Result::need_more:
          break;
      }
      const long n = receive_some(fd_, inbox_, deadline, failure);
      if (n < 0) {
        if (closed_) failure.set(errc::closed, "the stream was closed");
        return 0;
      }
      if (n == 0) {
        fail(errc::device_offline,
             "the connection holder ended the stream without a word (was it stopped?)");
        continue;
      }
      reader_.feed(std::span(inbox_.data(), static_cast<std::size_t>(n)));
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
  void take(const Reader::Frame& frame) {
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
        fail(errc::protocol_error, "the connection holder sent OKAY inside a stream");
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
  Reader reader_;
  std::span<const std::uint8_t> pending_;  // the rest of the last DATA frame, inside reader_
  std::atomic<bool> ended_{false};
  std::atomic<bool> failed_{false};
  detail::Failure failed_with_;
  std::array<std::uint8_t, kReceiveSize> inbox_{};
  NoteHandler on_note_;
};

class HolderOpener final : public StreamOpener {
 public:
  HolderOpener(fs::path socket, std::string target, BannerRecord record, int spare,
               NoteHandler on_note)
      : socket_(std::move(socket)),
        target_(std::move(target)),
        record_(std::move(record)),
        banner_(protocol::parse_banner(record_.banner)),
        spare_(spare),
        on_note_(std::move(on_note)) {}
  ~HolderOpener() override { close(); }

  std::unique_ptr<StreamBackend> open(std::string_view service, Deadline deadline,
                                      detail::Failure& failure) override {
    if (closed_) {
      failure.set(errc::closed, "the connection to " + target_ + " was closed");
      return nullptr;
    }
    int fd = spare_.exchange(-1);
    if (fd < 0) fd = connect_holder(socket_, failure);
    if (fd < 0) {
      if (!failure) {
        failure.set(errc::device_offline,
                    "the connection holder for " + target_ + " has ended; run the command again");
      }
      return nullptr;
    }
    Reader reader;
    if (!send_request(fd, std::string(kOpenPrefix) + std::string(service), deadline, failure) ||
        !read_status(fd, reader, deadline, on_note_, "'" + std::string(service) + "'", failure)) {
      ::close(fd);
      return nullptr;
    }
    return std::make_unique<HolderStream>(fd, std::move(reader), on_note_);
  }

  const protocol::Banner& banner() const noexcept override { return banner_; }
  bool can_use_feature(std::string_view feature) const noexcept override {
    return std::find(record_.features.begin(), record_.features.end(), feature) !=
           record_.features.end();
  }
  std::string serial() const override { return record_.serial; }
  ConnectionInfo info() const override {
    ConnectionInfo info;
    info.target = target_;
    return info;
  }
  void close() noexcept override {
    closed_ = true;
    if (const int fd = spare_.exchange(-1); fd >= 0) ::close(fd);
  }

 private:
  const fs::path socket_;
  const std::string target_;
  const BannerRecord record_;
  const protocol::Banner banner_;
  std::atomic<int> spare_;  // the socket the banner came on, for the first open
  std::atomic<bool> closed_{false};
  const NoteHandler on_note_;
};

// Starts `program … holder` as a daemon (its own session, stdio on /dev/null, no descriptor of
// ours but the ready pipe as fd 3) and waits for its OKAY or FAIL on that pipe.
void start_holder(const HolderStart& start, const Target& target, detail::Failure& failure) {
  std::vector<std::string> words = {start.program.string()};
  words.insert(words.end(), start.flags.begin(), start.flags.end());
  for (const std::string& word :
       {std::string("-s"), target.to_string(), std::string("holder"), std::string("--idle"),
        std::to_string(start.idle.count()), std::string("--ready-fd"), std::string("3")}) {
    words.push_back(word);
  }
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
    failure.set(errc::io_error, "cannot start the connection holder (fork failed)");
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
  Reader reader;
  detail::Failure why;
  const Deadline deadline = deadline_after(start.ready_wait);
  if (!read_status(ready[0], reader, deadline, {}, "its start", why)) {
    if (why.code == errc::timeout) {
      why.detail = "the connection holder for " + target.to_string() + " was not ready within " +
                   std::to_string(start.ready_wait.count()) + " ms";
    } else if (why.code == errc::device_offline) {
      why.set(errc::io_error, "the connection holder " + start.program.string() +
                                  " ended before it was ready; run with --no-holder to see why");
    }
    failure = std::move(why);
  }
  ::close(ready[0]);
}

}  // namespace

Device connect_through_holder(const Target& target, const HolderStart& start, NoteHandler on_note) {
  detail::Failure failure;
  const HolderPaths paths = holder_paths(holder_identity(target, start.program), failure);
  failure.throw_if_failed();
  int fd = connect_holder(paths.socket, failure);
  if (fd < 0 && !failure) {
    const int lock = lock_file(paths.lock, deadline_after(start.ready_wait + 5s), failure);
    if (lock >= 0) {
      fd = connect_holder(paths.socket, failure);  // another call may have started it meanwhile
      if (fd < 0 && !failure) {
        start_holder(start, target, failure);
        if (!failure) fd = connect_holder(paths.socket, failure);
        if (fd < 0 && !failure) {
          failure.set(errc::io_error, "the connection holder started but does not answer at " +
                                          paths.socket.string());
        }
      }
      // A running holder removes the lock file when it ends; with none running, we do.
      if (fd < 0) {
        unlock_and_remove(paths.lock, lock);
      } else {
        ::close(lock);
      }
    }
  }
  failure.throw_if_failed();

  const Deadline deadline = deadline_after(kAnswerWait);
  Reader reader;
  std::array<std::uint8_t, 4096> buffer;
  BannerRecord record;
  bool have_record = false;
  if (send_request(fd, kBannerRequest, deadline, failure) &&
      read_status(fd, reader, deadline, on_note, "the banner request", failure)) {
    for (;;) {
      Reader::Frame frame;
      const Reader::Result result = reader.next_frame(frame);
      if (result == Reader::Result::ready) {
        if (frame.kind != FrameKind::data || parse_banner_record(frame.text(), record)) {
          failure.set(errc::protocol_error, "the connection holder sent a malformed banner");
        } else {
          have_record = true;
        }
        break;
      }
      if (result == Reader::Result::failed) {
        failure.set(errc::protocol_error, reader.error_detail());
        break;
      }
      const long n = receive_some(fd, buffer, deadline, failure);
      if (n <= 0) {
        if (!failure) failure.set(errc::device_offline, "the connection holder hung up");
        break;
      }
      reader.feed(std::span(buffer.data(), static_cast<std::size_t>(n)));
    }
  }
  if (!have_record) {
    ::close(fd);
    failure.throw_if_failed();
  }
  auto opener = std::make_shared<HolderOpener>(paths.socket, target.to_string(), std::move(record),
                                               fd, std::move(on_note));
  return Device(std::move(opener), ConnectOptions{}.command_timeout);
}

}  // namespace adbwire::cli::holder
