// Screen recordings that outlive the call that started them (record_start … record_stop):
// `screenrecord` runs on the device in an exec stream a thread of ours holds, writing an MP4 to
// a device temp file; stopping interrupts it as Ctrl-C does (SIGINT, so it writes the MP4's
// index), and the file is pulled to the host (sync: bounded memory) and removed. Internal.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <thread>

#include "adbwire/deadline.hpp"
#include "adbwire/device.hpp"

namespace adbwire::verbs {

class ScreenRecording {
 public:
  // Starts `screenrecord --time-limit limit --bit-rate bits_per_second REMOTE` on device.
  // device must outlive this (Recordings is destroyed before the Pages it records).
  ScreenRecording(Device& device, std::chrono::seconds limit, std::uint32_t bits_per_second);
  // Interrupts a recording still running (a short deadline) and joins its thread.
  ~ScreenRecording();
  ScreenRecording(const ScreenRecording&) = delete;
  ScreenRecording& operator=(const ScreenRecording&) = delete;

  // Ends the recording if it still runs and pulls the MP4 to local (a path in a private
  // folder), then removes the device's copy. Returns how long it recorded. Errors: the
  // device's (screenrecord's own message when it failed: not_supported on a device without
  // it), timeout when it does not end within 15 s of the interrupt.
  std::chrono::milliseconds stop_and_pull(const std::filesystem::path& local);

  // Waits up to `wait` for screenrecord to fail at its start (missing, refused, no display to
  // capture: it then ends at once) and returns when it still runs. Errors: not_supported when
  // the device has no screenrecord, command_failed quoting what it printed otherwise.
  void check_started(std::chrono::milliseconds wait);

  const std::string& remote() const noexcept { return remote_; }
  std::chrono::seconds limit() const noexcept { return limit_; }

 private:
  // Sends SIGINT until screenrecord got it or ended, or until end.
  void interrupt(Deadline end);

  Device& device_;
  std::string tag_;     // unique per recording: the device file and what pkill matches
  std::string remote_;  // the device's temp file
  std::chrono::seconds limit_;
  std::chrono::steady_clock::time_point began_;
  std::atomic<bool> ended_{false};
  std::error_code error_;  // the exec's, read after the thread ended
  std::string output_;     // what screenrecord printed
  std::thread thread_;
};

// The recordings of one surface, one per device at a time. Not thread safe (the surface's one
// worker uses it).
class Recordings {
 public:
  // Starts a recording on device (the key the surface names it by) and sees it start
  // (ScreenRecording::check_started's errors). busy when one runs.
  ScreenRecording& start(const std::string& key, Device& device, std::chrono::seconds limit,
                         std::uint32_t bits_per_second);
  // The recording of key, or nullptr; take() removes it from the set.
  std::unique_ptr<ScreenRecording> take(const std::string& key);
  // Ends and forgets the recording of key (its device is going away).
  void drop(const std::string& key) { recordings_.erase(key); }

  // Trajectories recorded through this surface (record_trajectory_start): replay_trajectory
  // reads them wherever they are, as it reads files of the folders the operator allowed.
  void add_trajectory(const std::filesystem::path& file) {
    trajectories_.insert(file);
    last_trajectory_ = file;
  }
  bool recorded_trajectory(const std::filesystem::path& file) const {
    return trajectories_.contains(file);
  }
  // The one recorded last ("" before any).
  const std::filesystem::path& last_trajectory() const noexcept { return last_trajectory_; }

 private:
  std::map<std::string, std::unique_ptr<ScreenRecording>> recordings_;
  std::set<std::filesystem::path> trajectories_;
  std::filesystem::path last_trajectory_;
};

}  // namespace adbwire::verbs
