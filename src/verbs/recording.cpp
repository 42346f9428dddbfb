#include "verbs/recording.hpp"

#include <random>
#include <thread>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/sync.hpp"
#include "base/shell_quote.hpp"

namespace adbwire::verbs {

namespace {

using namespace std::chrono_literals;

// How long screenrecord may take to write its index and exit after the interrupt.
constexpr auto kStopWait = 15s;
// How long a start is watched: screenrecord that cannot record ends within milliseconds.
constexpr auto kStartCheck = 300ms;
// What is kept of screenrecord's own words, for the error message.
constexpr std::size_t kKeptOutput = 4096;
// The whole pull of a recording: no person started it to watch it and press Ctrl-C, so a device
// that sends without end (or a link that crawls) ends it here. 180 s at 4 Mbit/s is 90 MB.
constexpr auto kPullWait = 5min;

std::string random_tag() {
  std::random_device random;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string tag;
  for (int i = 0; i < 12; ++i) tag += kHex[random() % 16];
  return tag;
}

// pkill -f pattern for tag: "[d]" so it does not match the shell running pkill.
std::string kill_pattern(const std::string& tag) { return "adbwire-screenrecor[d]-" + tag; }

}  // namespace

ScreenRecording::ScreenRecording(Device& device, std::chrono::seconds limit,
                                 std::uint32_t bits_per_second)
    : device_(device),
      tag_(random_tag()),
      remote_("/data/local/tmp/adbwire-screenrecord-" + tag_ + ".mp4"),
      limit_(limit),
      began_(std::chrono::steady_clock::now()) {
  const std::string command = "screenrecord --time-limit " + std::to_string(limit.count()) +
                              " --bit-rate " + std::to_string(bits_per_second) + " " +
                              detail::shell_quote(remote_);
  thread_ = std::thread([this, command] {
    std::error_code error;
    // 2>&1: screenrecord says why it failed on stderr ("Unable to get output buffers"). Only
    // the start is kept: a device cannot make us hold more by printing without end.
    device_.exec(
        command + " 2>&1",
        [this](std::span<const std::uint8_t> chunk) {
          const std::size_t room = kKeptOutput - std::min(kKeptOutput, output_.size());
          output_.append(reinterpret_cast<const char*>(chunk.data()), std::min(room, chunk.size()));
        },
        deadline_after(limit_ + kStopWait + 15s), error);
    error_ = error;
    ended_ = true;
  });
}

ScreenRecording::~ScreenRecording() {
  if (thread_.joinable()) {
    interrupt(deadline_after(5s));
    thread_.join();
  }
}

void ScreenRecording::interrupt(Deadline end) {
  // A stop right after the start can come before screenrecord runs: pkill then matches
  // nothing (exit 1), so it is sent again until it reaches the process or the process ended.
  bool interrupted = false;
  while (!ended_ && Clock::now() < end) {
    if (!interrupted) {
      std::error_code error;
      const ShellResult sent = device_.shell(
          "pkill -INT -f " + detail::shell_quote(kill_pattern(tag_)), deadline_after(5s), error);
      if (error) return;  // the connection is gone: the exec ends with it
      interrupted = sent.exit_code == 0;
    }
    for (int i = 0; i < 10 && !ended_; ++i) std::this_thread::sleep_for(20ms);
  }
}

std::chrono::milliseconds ScreenRecording::stop_and_pull(const std::filesystem::path& local) {
  const auto recorded = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::min<std::chrono::steady_clock::duration>(std::chrono::steady_clock::now() - began_,
                                                    limit_));
  const Deadline end = deadline_after(kStopWait);
  interrupt(end);
  while (!ended_ && Clock::now() < end) std::this_thread::sleep_for(20ms);
  if (!ended_) {
    throw Error(errc::timeout,
                "screenrecord did not end within " + std::to_string(kStopWait.count()) +
                    " s of the interrupt; its file " + remote_ + " stays on the device");
  }
  thread_.join();
  if (error_) throw Error(error_, "screenrecord failed: " + protocol::printable(output_, 200));
  std::error_code missing;
  PullOptions options;
  options.keep_attributes = false;
  options.private_files = true;
  options.deadline = deadline_after(kPullWait);
  SyncClient sync(device_, options.deadline);
  sync.pull(remote_, local, options, missing);
  std::error_code ignored;
  device_.shell("rm -f " + detail::shell_quote(remote_), deadline_after(5s), ignored);
  if (missing) {
    const std::string said = protocol::printable(output_, 200);
    throw Error(missing == errc::not_found ? make_error_code(errc::not_supported) : missing,
                "the recording left no file on the device" +
                    (said.empty() ? std::string() : " (screenrecord said: " + said + ")") +
                    "; screenrecord needs Android 4.4 and a display it may capture");
  }
  return recorded;
}

void ScreenRecording::check_started(std::chrono::milliseconds wait) {
  const Deadline end = deadline_after(wait);
  while (!ended_ && Clock::now() < end) std::this_thread::sleep_for(10ms);
  if (!ended_) return;
  thread_.join();
  if (error_) throw Error(error_, "screenrecord could not start: " + error_.message());
  const std::string said = protocol::printable(output_, 200);
  if (output_.find("not found") != std::string::npos) {
    throw Error(errc::not_supported, "this device has no screenrecord (" + said +
                                         "); it needs Android 4.4 or later, and some builds "
                                         "leave it out: nothing is being recorded");
  }
  throw Error(errc::command_failed,
              "screenrecord ended as it started, recording nothing" +
                  (said.empty() ? std::string() : ": it said \"" + said + "\""));
}

ScreenRecording& Recordings::start(const std::string& key, Device& device,
                                   std::chrono::seconds limit, std::uint32_t bits_per_second) {
  if (recordings_.contains(key)) {
    throw Error(errc::busy,
                "a screen recording is already running on this device: record_stop saves it");
  }
  auto recording = std::make_unique<ScreenRecording>(device, limit, bits_per_second);
  recording->check_started(kStartCheck);
  ScreenRecording& started = *recording;
  recordings_.emplace(key, std::move(recording));
  return started;
}

std::unique_ptr<ScreenRecording> Recordings::take(const std::string& key) {
  const auto found = recordings_.find(key);
  if (found == recordings_.end()) return nullptr;
  std::unique_ptr<ScreenRecording> recording = std::move(found->second);
  recordings_.erase(found);
  return recording;
}

}  // namespace adbwire::verbs
