#include "agent/trajectory_recorder.hpp"

#include "adbwire/error.hpp"
#include "adbwire/screencap.hpp"

namespace adbwire::agent {

TrajectoryElement recorded_element(const ui::Snapshot& snapshot, const ui::RefInfo& info) {
  TrajectoryElement e;
  e.ref = info.ref;
  e.label = info.label;
  e.row = info.row;
  e.bounds = info.bounds;
  e.exact_token = info.exact_token;
  e.identity_token = info.identity_token;
  e.look_alikes = info.look_alikes;
  if (info.node < snapshot.nodes().size()) {
    const ui::Node& node = snapshot.node(info.node);
    e.package = node.package;
    e.class_name = node.class_name;
    e.resource_id = node.resource_id;
    e.text = node.text;
    e.content_desc = node.content_desc;
  }
  return e;
}

TrajectoryRecorder::TrajectoryRecorder(std::shared_ptr<Trajectory> trajectory, Device& device,
                                       const detail::SecretMask& mask,
                                       std::chrono::milliseconds screenshot_timeout)
    : trajectory_(std::move(trajectory)),
      device_(device),
      screenshot_timeout_(screenshot_timeout),
      mask_(mask) {}

void TrajectoryRecorder::snapshot_taken(const ui::Snapshot& snapshot, std::string_view xml,
                                        detail::Failure& failure) {
  std::string text = mask_.apply(snapshot.to_text());
  snapshot_hash_ = snapshot_hash(text);
  if (trajectory_->options().inline_snapshots) {
    snapshot_file_.clear();
    observation_ = std::move(text);
    return;
  }
  std::error_code error;
  std::string name = trajectory_->save("snapshot.txt", text, error);
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
  step.snapshot_hash = snapshot_hash_;
  step.observation = std::move(observation_);
  observation_.clear();
  step.points = std::move(call.points);
  // A token or label holds what the screen showed, so a secret shown there is masked too (the
  // element is then not found by it on replay, which stops there rather than guess).
  for (TrajectoryElement& e : call.elements) {
    if (mask_.empty()) break;
    for (std::string* field : {&e.label, &e.row, &e.text, &e.content_desc, &e.resource_id,
                               &e.exact_token, &e.identity_token})
      *field = mask_.apply(*field);
  }
  step.elements = std::move(call.elements);
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
