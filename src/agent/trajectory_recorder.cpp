#include "agent/trajectory_recorder.hpp"

#include "adbwire/error.hpp"
#include "adbwire/screencap.hpp"

namespace adbwire::agent {

TrajectoryRecorder::TrajectoryRecorder(std::shared_ptr<Trajectory> trajectory, Device& device,
                                       std::chrono::milliseconds screenshot_timeout)
    : trajectory_(std::move(trajectory)),
      device_(device),
      screenshot_timeout_(screenshot_timeout) {}

void TrajectoryRecorder::snapshot_taken(const ui::Snapshot& snapshot, std::string_view xml,
                                        detail::Failure& failure) {
  std::error_code error;
  std::string name = trajectory_->save("snapshot.txt", mask_.apply(snapshot.to_text()), error);
  if (!error) trajectory_->save("snapshot.xml", mask_.apply(xml), error);
  if (error) {
    failure = detail::reported(error);
    return;
  }
  snapshot_file_ = std::move(name);
}

void TrajectoryRecorder::call_finished(PageCall call, const detail::Failure& result,
                                       detail::Failure& failure) {
  TrajectoryStep step;
  step.action = call.action;
  step.args = std::move(call.args);
  step.error = result.code;
  if (result) step.message = Error(result.code, result.detail).what();
  step.started = call.started;
  step.duration =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - call.started_steady);
  step.snapshot = snapshot_file_;
  std::error_code error;
  if (!result && call.changes_screen && trajectory_->options().screenshots) {
    const EncodedImage png = screenshot(device_, {}, deadline_after(screenshot_timeout_), error);
    if (!error) {
      step.screenshot = trajectory_->save(
          "after.png", {reinterpret_cast<const char*>(png.bytes.data()), png.bytes.size()}, error);
    }
  }
  if (!error) trajectory_->record(step, error);
  if (error && !result) failure = detail::reported(error);
}

}  // namespace adbwire::agent
