// sync: the file sync protocol (protocol/sync.md) served from the device's root folder:
// STAT/LST2/STA2, LIST/LIS2, SEND/SND2 (modes and mtimes kept), RECV/RCV2, QUIT. SND2/RCV2
// with a compression flag (brotli/lz4/zstd, when offered) carry one compressed stream per
// file: received DATA is decompressed before it is written, sent DATA compressed.
//
// Bounded memory: host bytes are acknowledged only once parsed, so at most one receive
// window waits here; file content and listings are produced while the stream has room
// (Service::kMaxQueued) and resume on stream_writable.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/protocol/sync.hpp"
#include "compression/sync_compression.hpp"
#include "vdevice/service.hpp"

namespace adbwire::vdevice {
namespace {

namespace fs = std::filesystem;
using detail::SyncCodec;
using protocol::SyncId;
using protocol::SyncParse;
using protocol::SyncRequest;
using protocol::SyncStat;

protocol::SyncStat to_sync_stat(const struct stat& st) {
  SyncStat s;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.mode = st.st_mode;
  s.nlink = static_cast<std::uint32_t>(st.st_nlink);
  s.uid = st.st_uid;
  s.gid = st.st_gid;
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.atime = st.st_atime;
  s.mtime = st.st_mtime;
  s.ctime = st.st_ctime;
  return s;
}

std::string errno_text() { return std::strerror(errno); }

constexpr std::string_view kPwned = "pwned by a hostile device\n";
// HostileSync::bomb: the size every file is announced with, and the zeros it then sends.
constexpr std::uint64_t kBombAnnounced = 10;
constexpr std::uint64_t kBombSent = std::uint64_t{4} << 30;

// The special_modes mode: setuid, setgid and 0777 on files, sticky and 0777 on folders.
std::uint32_t hostile_mode(std::uint32_t mode) {
  return S_ISDIR(mode) ? (mode & ~07777u) | 01777u : (mode & ~07777u) | 06777u;
}

class SyncService final : public Service {
 public:
  SyncService(ServiceHost& host, std::uint32_t stream)
      : host_(host),
        stream_(stream),
        drop_after_(host.device().drop_after_bytes()),
        hostile_(host.device().hostile_sync()) {}

  ~SyncService() override { abandon(); }

  void start() override {}

  void on_data(std::span<const std::uint8_t> data) override {
    unacknowledged_ += data.size();
    if (ended_) {
      acknowledge();
      return;
    }
    if (inbox_.empty()) {
      const std::size_t used = consume(data);
      if (!ended_ && used < data.size())
        inbox_.assign(data.begin() + static_cast<std::ptrdiff_t>(used), data.end());
    } else {
      inbox_.insert(inbox_.end(), data.begin(), data.end());
    }
    acknowledge();
  }

  void resume() override {
    if (ended_) return;
    const std::size_t used = consume(inbox_);
    if (ended_) return;
    inbox_.erase(inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(used));
    acknowledge();
  }

 private:
  enum class Task { none, recv, list };

  // Handles requests from input until it is used up or a task waits for room; returns how
  // many bytes were used.
  std::size_t consume(std::span<const std::uint8_t> input) {
    const std::size_t total = input.size();
    while (!ended_) {
      if (task_ != Task::none) {
        if (!continue_task()) break;
        continue;
      }
      if (input.empty()) break;
      SyncRequest request;
      const SyncParse result = reader_.parse(input, request);
      if (result == SyncParse::failed) {
        fail(reader_.error_detail());
        break;
      }
      if (result == SyncParse::ready) handle(request);
    }
    return total - input.size();
  }

  // The host may send more only after our OKAY: acknowledge once everything was parsed.
  void acknowledge() {
    if (unacknowledged_ == 0 || dropped_) return;
    if (!ended_ && !inbox_.empty()) return;
    host_.session().acknowledge(stream_, unacknowledged_);
    unacknowledged_ = 0;
  }

  bool has_room() const { return host_.session().queued(stream_) < kMaxQueued; }

  void send(const std::vector<std::uint8_t>& bytes) { host_.session().write(stream_, bytes); }

  void fail(const std::string& message) {
    out_.clear();
    protocol::append_sync_fail(out_, message);
    send(out_);
    end();
  }

  // adbd ends the sync service after a FAIL or QUIT.
  void end() {
    if (ended_) return;
    abandon();
    ended_ = true;
    inbox_.clear();
    host_.session().close_stream(stream_);
  }

  // Counts file content; true (and the connection gone) once the test fault triggers.
  bool count_and_maybe_drop(std::size_t bytes) {
    transferred_ += bytes;
    if (drop_after_ == 0 || transferred_ < drop_after_) return false;
    abandon();
    ended_ = true;
    dropped_ = true;
    host_.disconnect();
    return true;
  }

  // Releases open files; a push that did not finish leaves nothing behind, as adbd unlinks.
  void abandon() {
    if (file_ >= 0) ::close(file_);
    file_ = -1;
    // The codecs stay: this can run inside a codec's own write (the drop fault fires in its
    // sink), so each transfer replaces them when it starts and the service's end frees them.
    if (dir_) ::closedir(dir_);
    dir_ = nullptr;
    if (pushing_ && !push_target_.empty()) {
      std::error_code ignored;
      fs::remove(push_target_, ignored);
    }
    pushing_ = false;
    task_ = Task::none;
  }

  void handle(SyncRequest& request) {
    switch (request.type) {
      case SyncRequest::Type::data:
        push_data(request.data);
        return;
      case SyncRequest::Type::done:
        push_done(request.mtime);
        return;
      case SyncRequest::Type::request:
        break;
    }
    switch (request.id) {
      case SyncId::stat:
      case SyncId::sta2:
      case SyncId::lst2:
        do_stat(request.id, request.path);
        return;
      case SyncId::list:
      case SyncId::lis2:
        start_list(request.id == SyncId::lis2, request.path);
        return;
      case SyncId::send:
      case SyncId::snd2:
        start_push(request);
        return;
      case SyncId::recv:
      case SyncId::rcv2:
        start_recv(request);
        return;
      default:
        end();
        return;
    }
  }

  void do_stat(SyncId id, const std::string& device_path) {
    struct stat st {};
    int error = 0;
    std::error_code resolve_error;
    const fs::path path = host_.device().resolve(device_path, resolve_error);
    if (resolve_error) {
      error = resolve_error == errc::permission_denied ? EACCES : ENOENT;
    } else if ((id == SyncId::sta2 ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
      error = errno;
    }
    if (!error && hostile_ == HostileSync::special_modes) st.st_mode = hostile_mode(st.st_mode);
    if (!error && hostile_ == HostileSync::bomb && S_ISREG(st.st_mode)) st.st_size = kBombAnnounced;
    out_.clear();
    if (id == SyncId::stat) {
      protocol::append_sync_stat_v1(out_, error ? SyncStat{} : to_sync_stat(st));
    } else {
      SyncStat s = error ? SyncStat{} : to_sync_stat(st);
      s.error = static_cast<std::uint32_t>(error);
      protocol::append_sync_stat_v2(out_, id, s);
    }
    send(out_);
  }

  // ---- LIST / LIS2: "." and ".." included, as readdir gives them; an unreadable folder is
  // an empty listing, as with adbd.
  void start_list(bool v2, const std::string& device_path) {
    list_v2_ = v2;
    hostile_sent_ = false;
    std::error_code resolve_error;
    const fs::path path = host_.device().resolve(device_path, resolve_error);
    if (!resolve_error) dir_ = ::opendir(path.c_str());
    task_ = Task::list;
  }

  bool continue_list() {
    while (dir_ && has_room()) {
      const dirent* entry = ::readdir(dir_);
      if (!entry) break;
      struct stat st {};
      SyncStat s;
      if (::fstatat(::dirfd(dir_), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        s = to_sync_stat(st);
        if (hostile_ == HostileSync::special_modes) s.mode = hostile_mode(s.mode);
        if (hostile_ == HostileSync::bomb && S_ISREG(st.st_mode)) s.size = kBombAnnounced;
      } else if (list_v2_) {
        s.error = static_cast<std::uint32_t>(errno);
      } else {
        continue;
      }
      out_.clear();
      protocol::append_sync_dent(out_, list_v2_, entry->d_name, s);
      send(out_);
    }
    if (dir_ && !has_room()) return false;
    if (dir_) ::closedir(dir_);
    dir_ = nullptr;
    if (!send_hostile_entries()) return false;
    out_.clear();
    protocol::append_sync_list_done(out_, list_v2_);
    send(out_);
    task_ = Task::none;
    return true;
  }

  // What HostileSync adds to a listing once the real entries are sent; false while an
  // endless listing waits for room (it never returns true).
  bool send_hostile_entries() {
    const auto entry = [this](std::string_view name, std::uint32_t mode, std::uint64_t size) {
      SyncStat s;
      s.mode = mode;
      s.size = size;
      s.nlink = 1;
      s.mtime = 1700000000;
      out_.clear();
      protocol::append_sync_dent(out_, list_v2_, name, s);
      send(out_);
    };
    if (hostile_sent_) return true;
    switch (hostile_) {
      case HostileSync::none:
      case HostileSync::special_modes:
      case HostileSync::bomb:
        break;
      case HostileSync::traversal_names:
        entry("../escape.txt", S_IFREG | 0644, kPwned.size());
        entry("sub/../../escape.txt", S_IFREG | 0644, kPwned.size());
        entry("/tmp/adbwire-absolute.txt", S_IFREG | 0644, kPwned.size());
        break;
      case HostileSync::climbing_folder:
        entry("../../somedir", S_IFDIR | 0777, 4096);
        break;
      case HostileSync::endless_listing:
        while (has_room()) {
          char name[16];
          std::snprintf(name, sizeof name, "f%07llu",
                        static_cast<unsigned long long>(hostile_counter_++));
          entry(name, S_IFREG | 0644, 1);
        }
        return false;
      case HostileSync::endless_long_names:
        while (has_room()) {
          std::string name = "f" + std::to_string(hostile_counter_++) + "-";
          name.resize(255, 'n');
          entry(name, S_IFREG | 0644, 1);
        }
        return false;
      case HostileSync::endless_tree:
        entry("d", S_IFDIR | 0755, 4096);
        break;
      case HostileSync::escape_names:
        entry("\x1b]0;pwned\x07\x1b[2J\x1b[31mevil.txt", S_IFREG | 0644, kPwned.size());
        break;
    }
    hostile_sent_ = true;
    return true;
  }

  // A hostile device serves kPwned for any path it made up.
  int open_pwned() const {
    const int fd = ::memfd_create("pwned", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (::write(fd, kPwned.data(), kPwned.size()) != static_cast<ssize_t>(kPwned.size()) ||
        ::lseek(fd, 0, SEEK_SET) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  // ---- RECV / RCV2
  // The codec asked for by SND2/RCV2 flags; false for flags this device does not serve (an
  // unknown bit, a dry run outside a push, a compression whose feature it does not offer).
  bool codec_for(std::uint32_t flags, bool dry_run_allowed, std::optional<SyncCodec>& codec) const {
    if (!dry_run_allowed && (flags & protocol::kSyncFlagDryRun) != 0) return false;
    bool unknown = false;
    codec = detail::sync_codec_from_flags(flags, unknown);
    if (unknown) return false;
    return !codec ||
           (host_.device().sync_compression_flags() & detail::sync_codec_flag(*codec)) != 0;
  }

  void start_recv(const SyncRequest& request) {
    std::optional<SyncCodec> codec;
    if (!codec_for(request.flags, false, codec)) {
      fail("unknown flags: " + std::to_string(request.flags));
      return;
    }
    std::error_code resolve_error;
    const fs::path path = host_.device().resolve(request.path, resolve_error);
    if (!resolve_error) file_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file_ < 0 && hostile_ != HostileSync::none) file_ = open_pwned();
    bomb_left_ = 0;
    if (file_ >= 0 && hostile_ == HostileSync::bomb) {
      // Whatever the file holds: zeros, far more than announced, made as they are sent.
      ::close(file_);
      file_ = ::open("/dev/zero", O_RDONLY | O_CLOEXEC);
      bomb_left_ = kBombSent;
    }
    if (resolve_error && file_ < 0) {
      fail(std::string("open failed: ") +
           std::strerror(resolve_error == errc::permission_denied ? EACCES : ENOENT));
      return;
    }
    if (file_ < 0) {
      fail("open failed: " + errno_text());
      return;
    }
    encoder_ = codec ? detail::SyncCompressor::make(*codec) : nullptr;
    task_ = Task::recv;
  }

  // Sends one DATA chunk of a file's (compressed) content; false once the test fault dropped
  // the connection.
  bool send_data(std::span<const std::uint8_t> chunk) {
    out_.clear();
    if (encoder_ && host_.device().corrupt_compressed_sync()) {
      garbage_.assign(chunk.size(), 0xA5);
      chunk = garbage_;
    }
    protocol::append_sync_data(out_, chunk);
    send(out_);
    return !count_and_maybe_drop(chunk.size());
  }

  bool continue_recv() {
    chunk_.resize(protocol::kSyncDataMax);
    while (has_room()) {
      const bool bomb = hostile_ == HostileSync::bomb;
      const ssize_t n =
          bomb && bomb_left_ == 0
              ? 0
              : ::read(file_, chunk_.data(),
                       bomb ? std::min<std::uint64_t>(chunk_.size(), bomb_left_) : chunk_.size());
      if (bomb && n > 0) bomb_left_ -= static_cast<std::uint64_t>(n);
      if (n < 0) {
        fail("read failed: " + errno_text());
        return true;
      }
      const auto sink = [this](std::span<const std::uint8_t> bytes) { return send_data(bytes); };
      if (n == 0) {
        if (encoder_ && !encoder_->finish(sink)) {
          if (!ended_) fail("compress failed: " + encoder_->error());
          return true;
        }
        ::close(file_);
        file_ = -1;
        encoder_.reset();
        task_ = Task::none;
        out_.clear();
        protocol::append_sync_done(out_, 0);
        send(out_);
        return true;
      }
      const std::span<const std::uint8_t> content(chunk_.data(), static_cast<std::size_t>(n));
      if (!(encoder_ ? encoder_->write(content, sink) : sink(content))) {
        if (!ended_) fail("compress failed: " + (encoder_ ? encoder_->error() : std::string()));
        return true;
      }
    }
    return false;
  }

  // True when the task finished (or the stream ended); false while it waits for room.
  bool continue_task() { return task_ == Task::recv ? continue_recv() : continue_list(); }

  // ---- SEND / SND2. The file is written in place, as adbd does, and removed if the push
  // does not complete; the mode is kept exactly (adbd would widen it to group and other).
  void start_push(const SyncRequest& request) {
    pushing_ = true;
    push_failed_ = false;
    push_target_.clear();
    push_mode_ = request.mode;
    push_link_.clear();
    dry_run_ = (request.flags & protocol::kSyncFlagDryRun) != 0;
    std::optional<SyncCodec> codec;
    if (!codec_for(request.flags, true, codec)) {
      push_error("unknown flags: " + std::to_string(request.flags));
      return;
    }
    decoder_ = codec ? detail::SyncDecompressor::make(*codec) : nullptr;
    std::error_code resolve_error;
    const fs::path path = host_.device().resolve(request.path, resolve_error);
    if (resolve_error) {
      push_error(std::string("couldn't create file: ") +
                 std::strerror(resolve_error == errc::permission_denied ? EACCES : EINVAL));
      return;
    }
    push_path_ = path;
    if (dry_run_) return;
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (exists && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) ::unlink(path.c_str());
    if (S_ISLNK(push_mode_)) return;  // created at DONE from the DATA (the link target)

    const mode_t mode = push_mode_ & 07777;
    file_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (file_ < 0 && errno == ENOENT) {
      std::error_code mkdir_error;
      fs::create_directories(path.parent_path(), mkdir_error);
      if (mkdir_error) {
        push_error("secure_mkdirs() failed: " + mkdir_error.message());
        return;
      }
      file_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    }
    if (file_ < 0 && errno == EEXIST) file_ = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (file_ < 0) {
      push_error("couldn't create file: " + errno_text());
      return;
    }
    push_target_ = path;
    ::fchmod(file_, mode);  // the umask must not narrow what the host asked for
  }

  // adbd sends FAIL at once, then reads and drops DATA until DONE before ending the stream.
  void push_error(const std::string& message) {
    out_.clear();
    protocol::append_sync_fail(out_, message);
    send(out_);
    push_failed_ = true;
    if (file_ >= 0) ::close(file_);
    file_ = -1;
  }

  void push_data(std::span<const std::uint8_t> data) {
    if (count_and_maybe_drop(data.size())) return;
    if (push_failed_) return;
    if (!decoder_) {
      store(data);
      return;
    }
    if (!decoder_->write(data,
                         [this](std::span<const std::uint8_t> bytes) { return store(bytes); }) &&
        !push_failed_) {
      push_error("decompress failed: " + decoder_->error());
    }
  }

  // Plain content of the pushed file (or link target); false after a push_error.
  bool store(std::span<const std::uint8_t> data) {
    if (dry_run_) return true;
    if (S_ISLNK(push_mode_)) {
      if (push_link_.size() + data.size() > 4096) {
        push_error("oversize data message");
        return false;
      }
      push_link_.append(reinterpret_cast<const char*>(data.data()), data.size());
      return true;
    }
    std::size_t written = 0;
    while (written < data.size()) {
      const ssize_t n = ::write(file_, data.data() + written, data.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        push_error("write failed: " + errno_text());
        return false;
      }
      written += static_cast<std::size_t>(n);
    }
    return true;
  }

  void push_done(std::uint32_t mtime) {
    if (push_failed_) {
      end();
      return;
    }
    if (decoder_ && !decoder_->finish()) {
      fail("decompress failed: " + decoder_->error());  // removes the partial file
      return;
    }
    decoder_.reset();
    if (!dry_run_ && S_ISLNK(push_mode_)) {
      // The host sends the target with its terminating NUL.
      const std::string target = push_link_.substr(0, push_link_.find('\0'));
      bool linked = ::symlink(target.c_str(), push_path_.c_str()) == 0;
      if (!linked && errno == ENOENT) {
        // As adbd's handle_send_link: the folders are made only when the link needs them.
        std::error_code mkdir_error;
        fs::create_directories(push_path_.parent_path(), mkdir_error);
        if (mkdir_error) {
          fail("secure_mkdirs() failed: " + mkdir_error.message());
          return;
        }
        linked = ::symlink(target.c_str(), push_path_.c_str()) == 0;
      }
      if (!linked) {
        fail("symlink failed: " + errno_text());
        return;
      }
    }
    if (file_ >= 0 && ::close(file_) != 0) {
      file_ = -1;
      fail("write failed: " + errno_text());
      return;
    }
    file_ = -1;
    if (!dry_run_) {
      const timespec times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
      ::utimensat(AT_FDCWD, push_path_.c_str(), times, AT_SYMLINK_NOFOLLOW);
    }
    pushing_ = false;
    push_target_.clear();
    out_.clear();
    protocol::append_sync_okay(out_);
    send(out_);
  }

  ServiceHost& host_;
  std::uint32_t stream_;
  std::uint64_t drop_after_;
  HostileSync hostile_;
  bool hostile_sent_ = false;  // this listing's hostile entries are out
  std::uint64_t hostile_counter_ = 0;
  std::uint64_t transferred_ = 0;
  protocol::SyncRequestReader reader_;
  std::vector<std::uint8_t> inbox_;  // host bytes not yet parsed (a task waits for room)
  std::size_t unacknowledged_ = 0;
  std::vector<std::uint8_t> out_;
  std::vector<std::uint8_t> chunk_;
  std::vector<std::uint8_t> garbage_;                  // the corrupt_compressed_sync fault's DATA
  std::unique_ptr<detail::SyncCompressor> encoder_;    // a compressed RECV in progress
  std::unique_ptr<detail::SyncDecompressor> decoder_;  // a compressed SEND in progress
  bool ended_ = false;
  bool dropped_ = false;
  Task task_ = Task::none;
  int file_ = -1;
  std::uint64_t bomb_left_ = 0;  // HostileSync::bomb: zeros still to send
  DIR* dir_ = nullptr;
  bool list_v2_ = false;
  bool pushing_ = false;
  bool push_failed_ = false;
  bool dry_run_ = false;
  std::uint32_t push_mode_ = 0;
  fs::path push_path_;
  fs::path push_target_;  // a file we created: removed if the push does not complete
  std::string push_link_;
};

}  // namespace

std::shared_ptr<Service> make_sync_service(std::string_view destination, ServiceHost& host,
                                           std::uint32_t stream) {
  if (destination != "sync:") return nullptr;
  return std::make_shared<SyncService>(host, stream);
}

}  // namespace adbwire::vdevice
