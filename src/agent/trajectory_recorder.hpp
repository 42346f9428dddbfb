// The recording layer a caller opts into with PageOptions::trajectory: each Page call as one
// step of a Trajectory (trajectory.hpp), the snapshots it took or acted on, and with
// TrajectoryOptions::screenshots the screen after each call that changed it. Page hands every
// call here when it ends; Page's own methods know nothing of trajectories. Internal.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adbwire/device.hpp"
#include "adbwire/trajectory.hpp"
#include "adbwire/ui.hpp"
#include "base/failure.hpp"
#include "base/secret_mask.hpp"

namespace adbwire::agent {

// One call of Page's public API, as it is recorded.
struct PageCall {
  std::string_view action;                                // "tap", "snapshot", …
  std::vector<std::pair<std::string, std::string>> args;  // in the order the call takes them
  bool changes_screen = false;                            // an action, not a read
  std::chrono::system_clock::time_point started;
  Clock::time_point started_steady;
  std::vector<TrajectoryElement> elements;  // the elements it acted on
  std::vector<ui::Point> points;            // the pixels it touched
};

// What the trajectory records of the element a ref named (info, of snapshot).
TrajectoryElement recorded_element(const ui::Snapshot& snapshot, const ui::RefInfo& info);

// Not thread safe: one per Page (the Trajectory may be shared).
class TrajectoryRecorder {
 public:
  // device and mask (the Page's secrets) must outlive the recorder; screenshot_timeout bounds
  // the screenshot after an action.
  TrajectoryRecorder(std::shared_ptr<Trajectory> trajectory, Device& device,
                     const detail::SecretMask& mask, std::chrono::milliseconds screenshot_timeout);

  const std::shared_ptr<Trajectory>& trajectory() const noexcept { return trajectory_; }

  // snapshot (its text) and xml became the screen refs refer to: both are saved, and the steps
  // from now on name the text file. failure: io_error when they cannot be written.
  void snapshot_taken(const ui::Snapshot& snapshot, std::string_view xml, detail::Failure& failure);

  // call ended with `result` (its failure, or none): appends its step, after a screenshot when it
  // succeeded and changed the screen. A failure to record becomes failure when the call itself
  // succeeded (a recording that silently misses steps would mislead an audit).
  void call_finished(PageCall call, const detail::Failure& result, detail::Failure& failure);

 private:
  std::shared_ptr<Trajectory> trajectory_;
  Device& device_;
  std::chrono::milliseconds screenshot_timeout_;
  const detail::SecretMask& mask_;  // what a saved text shows as "<secret NAME>"
  std::string snapshot_file_;       // of the snapshot refs refer to
  std::string snapshot_hash_;       // of its text as saved
  std::string observation_;         // with inline_snapshots: its text, for the next step
};

}  // namespace adbwire::agent
