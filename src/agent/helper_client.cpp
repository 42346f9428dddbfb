#include "agent/helper_client.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "agent/dump.hpp"
#include "agent/helper_dex.hpp"
#include "agent/helper_protocol.hpp"
#include "base/advice.hpp"
#include "base/private_files.hpp"
#include "connection/bounded_output.hpp"

namespace adbwire::agent {
namespace {

namespace fs = std::filesystem;

// Bytes read after a broken frame to quote what the device printed instead (a Java stack
// trace on stderr reaches the exec stream too), and how long to wait for them.
constexpr std::size_t kQuoteBytes = 1024;
constexpr std::chrono::milliseconds kQuoteWait{200};
// Least time the labels of every installed app get (each opens the app's resources).
constexpr std::chrono::milliseconds kLabelsBudget{30000};

Deadline earliest(Deadline a, Deadline b) { return std::min(a, b); }

// Reads exactly into.size() bytes. False when the stream ended first, or failure is set.
bool read_exact(Stream& stream, std::span<std::uint8_t> into, Deadline deadline,
                detail::Failure& failure) {
  std::size_t got = 0;
  while (got < into.size()) {
    std::error_code error;
    const std::size_t n = stream.read_some(into.subspan(got), deadline, error);
    if (error == errc::closed) return false;
    if (error == errc::timeout) {
      failure.set(errc::timeout,
                  "the on-device dumper did not answer in time (it may be hung, or the device is "
                  "very slow); it was ended. The budget is " +
                      std::string(detail::advice("PageOptions::helper_timeout",
                                                 "PageOptions.helper_timeout")) +
                      " to start, helper_idle_max plus helper_timeout for a dump");
      return false;
    }
    if (error) {
      failure.set(error, "reading from the on-device dumper failed");
      return false;
    }
    if (n == 0) return false;
    got += n;
  }
  return true;
}

// The device's text as a message quotes it: without the line break it ends with, its first
// 200 bytes, escaped (protocol::printable).
std::string excerpt(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  return protocol::printable(text, 200);
}

// A file with the embedded dex for SyncClient::push, removed when this goes.
class DexFile {
 public:
  explicit DexFile(detail::Failure& failure) {
    static std::atomic<std::uint32_t> counter{0};
    // In the private runtime folder, 0600: /tmp is shared, and a name there could be taken first.
    const fs::path folder = detail::private_runtime_folder(failure);
    const std::string name =
        "dumper-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".dex";
    if (!failure) {
      path_ = folder / name;
      const detail::FolderFd fd =
          detail::open_private_folder(folder, detail::FolderTrust::own, failure);
      const auto dex = dumper_dex();
      if (fd) {
        detail::write_private_file(
            fd.get(), name, std::string_view(reinterpret_cast<const char*>(dex.data()), dex.size()),
            failure);
      }
    }
    if (failure) {
      path_.clear();
      failure.detail = "could not write the on-device dumper before pushing it: " + failure.detail;
    }
  }
  ~DexFile() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove(path_, ignored);
  }
  DexFile(const DexFile&) = delete;
  DexFile& operator=(const DexFile&) = delete;
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

// How long ending a stuck dumper or reading its log may take.
constexpr std::chrono::milliseconds kCleanupTimeout{2000};
constexpr std::size_t kLogBytes = 600;

std::string random_name() {
  std::random_device random;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
  return "adbwire-dumper-" + std::string(hex);
}

}  // namespace

HelperClient::HelperClient() : name_(random_name()) {}

void HelperClient::kill(Device& device) noexcept {
  std::error_code ignored;
  device.shell(helper::kill_command(name_), deadline_after(kCleanupTimeout), ignored);
}

std::string HelperClient::read_log(Device& device, Deadline deadline) noexcept {
  std::error_code error;
  Stream log = device.open("exec:cat " + std::string(helper::kLogPath),
                           earliest(deadline, deadline_after(kCleanupTimeout)), error);
  if (error) return {};
  std::string text(kLogBytes, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const std::size_t n =
        log.read_some({reinterpret_cast<std::uint8_t*>(text.data()) + got, text.size() - got},
                      deadline_after(kCleanupTimeout), error);
    if (error || n == 0) break;
    got += n;
  }
  text.resize(got);
  return excerpt(text);
}

void HelperClient::install(Device& device, Deadline deadline, detail::Failure& failure) {
  const std::string remote = helper::device_dex_path(dumper_dex_hash());
  std::error_code error;
  SyncClient sync(device, deadline, error);
  if (error) {
    failure.set(error, sync.last_error());
    return;
  }
  std::error_code missing;
  const RemoteStat stat = sync.stat(remote, deadline, missing);
  // A size that differs is a push cut short earlier: the hash in the name covers the rest.
  if (missing || !stat.is_regular() || stat.size != dumper_dex().size()) {
    const DexFile file(failure);
    if (failure) return;
    PushOptions options;
    options.deadline = deadline;
    sync.push(file.path(), remote, options, error);
    if (error) {
      failure.set(error, sync.last_error());
      return;
    }
  }
  installed_ = true;
}

bool HelperClient::exchange(std::span<const std::uint8_t> request, Deadline reply_deadline,
                            std::string& payload, bool& failed, detail::Failure& failure) {
  std::error_code error;
  stream_.write(request, reply_deadline, error);
  // A dumper that answered and ended before the request went out (an error it prints as it
  // starts, such as UiAutomation already registered) left its reply queued: it is read below
  // before the dumper counts as gone.
  if (error && error != errc::closed) {
    failure.set(error, "sending a request to the on-device dumper failed");
    return false;
  }
  std::array<std::uint8_t, helper::kHeaderSize> header{};
  if (!read_exact(stream_, header, reply_deadline, failure)) return false;
  const std::optional<helper::ReplyHeader> decoded = helper::decode_reply_header(header);
  if (!decoded) {
    std::string text(header.begin(), header.end());
    std::array<std::uint8_t, kQuoteBytes> more{};
    std::error_code ignored;
    const std::size_t n =
        stream_.read_some(more, earliest(reply_deadline, deadline_after(kQuoteWait)), ignored);
    text.append(more.begin(), more.begin() + static_cast<std::ptrdiff_t>(n));
    stop();
    if (classify_dump_output(text) == DumpFailure::automation_busy) {
      failure = dump_error(DumpFailure::automation_busy, text, 1);
    } else {
      failure.set(errc::protocol_error,
                  "the on-device dumper answered with bytes that are no reply frame: \"" +
                      excerpt(text) + "\"");
    }
    return false;
  }
  if (decoded->length > limits_.ui_dump) {
    stop();
    failure.set(errc::limit_exceeded,
                detail::over_limit_detail("the on-device dumper (a reply of " +
                                              std::to_string(decoded->length) + " bytes)",
                                          limits_, &OutputLimits::ui_dump));
    return false;
  }
  payload.resize(decoded->length);
  if (!read_exact(stream_, {reinterpret_cast<std::uint8_t*>(payload.data()), payload.size()},
                  reply_deadline, failure))
    return false;
  failed = decoded->status == helper::Status::failed;
  return true;
}

void HelperClient::start(Device& device, const HelperBudget& budget, Deadline deadline,
                         detail::Failure& failure) {
  if (!installed_) install(device, deadline, failure);
  if (failure) return;
  limits_ = device.output_limits();
  std::error_code error;
  stream_ = device.open(
      "exec:" + helper::start_command(helper::device_dex_path(dumper_dex_hash()), name_), deadline,
      error);
  if (error) {
    failure = detail::reported(error);
    return;
  }
  std::string payload;
  bool failed = false;
  const bool answered =
      exchange(helper::encode_ping(), earliest(deadline, deadline_after(budget.reply_timeout)),
               payload, failed, failure);
  if (failure) return;
  if (answered && !failed && payload == helper::kHello) return;
  stop();
  if (failed && classify_dump_output(payload) == DumpFailure::automation_busy) {
    failure = dump_error(DumpFailure::automation_busy, payload, 1);
    return;
  }
  if (!answered) {
    // Gone before its first reply: perhaps the dex was removed meanwhile; check it next start.
    installed_ = false;
    const std::string log = read_log(device, deadline);
    failure.set(errc::command_failed,
                "the on-device dumper exited right after it started (app_process could not run "
                "it" +
                    (log.empty() ? std::string(": see `adb logcat -s AndroidRuntime`)")
                                 : "; its stderr, " + std::string(helper::kLogPath) +
                                       ", says: " + log + ")"));
    return;
  }
  failure.set(errc::command_failed,
              failed ? "the on-device dumper could not start: " + excerpt(payload)
                     : "the on-device dumper is not the version this adbwire "
                       "expects (it said \"" +
                           excerpt(payload) + "\")");
}

std::string HelperClient::request(Device& device, std::string_view what,
                                  std::span<const std::uint8_t> request,
                                  std::chrono::milliseconds reply_budget,
                                  const HelperBudget& budget, Deadline deadline, bool& failed,
                                  detail::Failure& failure, bool repeatable) {
  for (int attempt = 0; !failure; ++attempt) {
    if (!running()) start(device, budget, deadline, failure);
    if (failure) break;
    std::string payload;
    failed = false;
    if (exchange(request, earliest(deadline, deadline_after(reply_budget)), payload, failed,
                 failure))
      return payload;
    if (failure) break;
    stop();
    if (!repeatable) {
      failure.set(errc::command_failed,
                  "the on-device dumper died during " + std::string(what) +
                      "; it was not sent again, since part of it may have reached the screen");
      break;
    }
    if (attempt == 1) {
      const std::string log = read_log(device, deadline);
      failure.set(
          errc::command_failed,
          "the on-device dumper died during " + std::string(what) +
              " twice in a row (restarted once); " +
              (log.empty() ? std::string("see `adb logcat -s AndroidRuntime` for its crash")
                           : "its stderr, " + std::string(helper::kLogPath) + ", says: " + log));
    }
  }
  // A reply that may still arrive must never be taken for the next request's, and a hung or
  // confused dumper must not keep UiAutomation from the fallback.
  stop();
  kill(device);
  return {};
}

std::string HelperClient::dump(Device& device, const HelperBudget& budget, Deadline deadline,
                               detail::Failure& failure) {
  const auto quiet = static_cast<std::uint32_t>(budget.idle_quiet.count());
  const auto max = static_cast<std::uint32_t>(budget.idle_max.count());
  bool failed = false;
  // A failed dump's text is uiautomator's wording; the caller classifies it.
  return request(device, "a dump", helper::encode_dump(quiet, max),
                 budget.idle_max + budget.reply_timeout, budget, deadline, failed, failure);
}

void HelperClient::set_clipboard(Device& device, std::string_view text, const HelperBudget& budget,
                                 Deadline deadline, detail::Failure& failure) {
  if (text.size() > helper::kMaxClip) {
    failure.set(errc::invalid_argument, "clipboard text of " + std::to_string(text.size()) +
                                            " bytes; at most " + std::to_string(helper::kMaxClip) +
                                            " fit a binder call");
    return;
  }
  const std::string encoded = helper::encode_set_clip(text);
  bool failed = false;
  const std::string reply =
      request(device, "setting the clipboard",
              {reinterpret_cast<const std::uint8_t*>(encoded.data()), encoded.size()},
              budget.reply_timeout, budget, deadline, failed, failure);
  if (!failure && failed)
    failure.set(errc::command_failed,
                "the device's clipboard service refused the text: " + excerpt(reply));
}

std::string HelperClient::get_clipboard(Device& device, const HelperBudget& budget,
                                        Deadline deadline, detail::Failure& failure) {
  const std::uint8_t get = helper::kGetClip;
  bool failed = false;
  std::string reply = request(device, "reading the clipboard", {&get, 1}, budget.reply_timeout,
                              budget, deadline, failed, failure);
  if (!failure && failed) {
    failure.set(errc::command_failed,
                "the device's clipboard service did not give its text (Android 10+ lets "
                "only the focused app or the input method read it): " +
                    excerpt(reply));
    return {};
  }
  return reply;
}

std::string HelperClient::inject(Device& device, const Gesture& gesture, const HelperBudget& budget,
                                 Deadline deadline, bool& refused, detail::Failure& failure) {
  const std::vector<std::int32_t> ints = gesture_ints(gesture);
  const std::string encoded = helper::encode_gesture(ints);
  refused = false;
  std::string reply = request(
      device, "a gesture", {reinterpret_cast<const std::uint8_t*>(encoded.data()), encoded.size()},
      gesture_length(gesture) + budget.reply_timeout, budget, deadline, refused, failure, false);
  if (failure || !refused) return {};
  return reply;
}

std::string HelperClient::labels(Device& device, const HelperBudget& budget, Deadline deadline,
                                 detail::Failure& failure) {
  const std::uint8_t labels = helper::kLabels;
  bool failed = false;
  // Every app's resources are opened once for its label: give it more than a dump's budget.
  std::string reply =
      request(device, "reading app labels", {&labels, 1},
              std::max(budget.reply_timeout, kLabelsBudget), budget, deadline, failed, failure);
  if (!failure && failed) {
    failure.set(
        errc::command_failed,
        "the on-device dumper could not read app labels from PackageManager: " + excerpt(reply));
    return {};
  }
  return reply;
}

}  // namespace adbwire::agent
