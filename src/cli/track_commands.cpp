// adbwire track-devices [-l] and jdwp: adb's two streaming listings, printed as adb prints them
// (client/commandline.cpp adb_connect_command: the service's bytes as they come). Both run until
// the device list ends (jdwp: the device closes it) or the user stops them: Ctrl-C ends the
// process as it ends adb, and a reader that goes away (`| head -c 4`) ends it with status 0.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "adbwire/adb_server.hpp"
#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/stream.hpp"
#include "base/failure.hpp"
#include "base/mutex.hpp"
#include "cli/commands.hpp"
#include "cli/connect.hpp"
#include "cli/device_selection.hpp"
#include "cli/terminal_text.hpp"

namespace adbwire::cli {
namespace {

using namespace std::chrono_literals;

// How often the daemon's list is read again: it has no push of its own to this loop, and a
// `connect` or `disconnect` a person makes shows within this.
constexpr auto kDaemonEvery = 250ms;

// The adb server's pushed lists, taken on a thread of their own so a change there shows at once.
class ServerLists {
 public:
  explicit ServerLists(const ServerAddress& address) {
    thread_ = std::jthread([this, address](std::stop_token stop) {
      std::error_code error;
      const AdbServer server(address, 5s, error);
      if (!error) {
        server.track_devices(
            [this](const protocol::DeviceListUpdate& update) {
              publish(update.devices);
              return true;
            },
            stop, kNoDeadline, error);
      }
      // adbwire never starts a server: with none running (or one that went away) its list is
      // empty and the daemon's devices alone are shown.
      publish({});
    });
  }

  // The newest list once it differs from the one of generation `seen` or `wait` passed (then
  // the same list again); an empty list until the server's first one came.
  std::vector<protocol::DeviceEntry> next(std::uint64_t& seen, std::chrono::milliseconds wait) {
    detail::MutexLock lock(mutex_);
    detail::wait_until(changed_, lock, deadline_after(wait),
                       [&]() ADBWIRE_REQUIRES(mutex_) { return generation_ != seen; });
    seen = generation_;
    return latest_;
  }

 private:
  void publish(std::vector<protocol::DeviceEntry> list) {
    const detail::MutexLock lock(mutex_);
    latest_ = std::move(list);
    ++generation_;
    changed_.notify_all();
  }

  detail::Mutex mutex_;
  std::condition_variable changed_;
  std::vector<protocol::DeviceEntry> latest_ ADBWIRE_GUARDED_BY(mutex_);
  std::uint64_t generation_ ADBWIRE_GUARDED_BY(mutex_) = 0;
  std::jthread thread_;  // last: stopped and joined before the members it uses go
};

// One list as `devices` builds it: the server's rows, then the daemon's devices it does not
// list; every field a device or server named escaped, so the framed list is what reaches the
// terminal and its length says so.
std::vector<protocol::DeviceEntry> merged(std::vector<protocol::DeviceEntry> rows,
                                          const GlobalOptions& globals) {
  detail::Failure ignored;  // no daemon running is the common case, and not worth a line
  for (protocol::DeviceEntry& entry : daemon_devices(globals, ignored)) {
    const bool listed = std::any_of(
        rows.begin(), rows.end(), [&entry](const auto& row) { return row.serial == entry.serial; });
    if (listed) continue;
    rows.push_back(std::move(entry));
  }
  for (protocol::DeviceEntry& row : rows) {
    for (std::string* field :
         {&row.serial, &row.state_text, &row.devpath, &row.product, &row.model, &row.device})
      *field = protocol::printable(*field);
  }
  return rows;
}

int track_devices(const GlobalOptions& globals, bool long_format) {
  ServerLists server(server_address(globals));
  const OutputHandler out = write_to(stdout);
  std::optional<std::string> last;
  std::uint64_t seen = 0;
  // The first list waits for the server's (bounded: a server that accepts and never answers).
  std::chrono::milliseconds wait = 5s;
  for (;;) {
    const std::string list =
        protocol::format_device_list(merged(server.next(seen, wait), globals), long_format);
    wait = kDaemonEvery;
    if (list == last) continue;
    std::vector<std::uint8_t> framed;
    protocol::append_smart_string(framed, list);
    out(framed);
    last = list;
  }
}

int jdwp(const GlobalOptions& globals) {
  Device device = connect_device(globals);
  Stream stream = device.open("jdwp");
  std::vector<std::uint8_t> chunk(4096);
  for (;;) {
    const std::size_t n = stream.read_some(chunk, kNoDeadline);
    if (n == 0) return 0;
    if (!print(std::string(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n))))
      return 0;
  }
}

}  // namespace

void add_track_commands(CLI::App& app, const GlobalOptions& globals, Run& run) {
  auto long_format = std::make_shared<bool>(false);
  auto words = std::make_shared<std::vector<std::string>>();
  auto* track = app.add_subcommand(
      "track-devices",
      "print the device list (adb's hex length, then the list) now and again at every change, "
      "until stopped: the adb server's devices and this user's daemon's");
  track->add_flag("-l", *long_format, "the long form, as devices -l");
  track->add_option("words", *words, "nothing: any word is a usage error, as in adb");
  track->callback([long_format, words, &globals, &run] {
    run = [long_format, words, &globals] {
      if (!words->empty()) {
        print_error("adbwire: usage: adbwire track-devices [-l]");
        return 1;
      }
      return track_devices(globals, *long_format);
    };
  });
  app.add_subcommand("jdwp", "print the pids of the device's processes hosting a JDWP transport")
      ->callback([&globals, &run] { run = [&globals] { return jdwp(globals); }; });
}

}  // namespace adbwire::cli
