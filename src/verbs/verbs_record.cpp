// record_start and record_stop: a screen recording kept by the surface between the two calls
// (verbs/recording.hpp). record_trajectory_start and _stop: a Trajectory the device's Page
// records into between the two calls; replay_trajectory plays one again.
#include <filesystem>
#include <system_error>

#include "adbwire/error.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/trajectory.hpp"
#include "verbs/handlers.hpp"
#include "verbs/reply_text.hpp"
#include "verbs/secrets.hpp"

namespace adbwire::verbs::handlers {
namespace {

// The device a recording is kept under: the one the call names, else the surface's default.
std::string recording_key(Call& call) {
  return call.device().empty() ? call.host().default_device() : call.device();
}

}  // namespace

Reply record_start(Call& call) {
  const std::chrono::seconds limit{call.integer("time_limit_s").value_or(180)};
  const auto mbps = static_cast<std::uint32_t>(call.integer("bit_rate_mbps").value_or(4));
  Device& device = call.page().device();
  call.host().recordings().start(recording_key(call), device, limit, mbps * 1000000U);
  return Reply::text("Recording the screen (at most " + std::to_string(limit.count()) + " s, " +
                     std::to_string(mbps) +
                     " Mbit/s). Act now; record_stop saves the video and gives its path.");
}

Reply record_stop(Call& call) {
  std::unique_ptr<ScreenRecording> recording = call.host().recordings().take(recording_key(call));
  if (!recording) {
    throw Error(errc::invalid_argument,
                "no screen recording is running on this device: record_start "
                "begins one");
  }
  const std::filesystem::path local = call.host().reserve("screenrecord.mp4");
  const std::chrono::milliseconds recorded = recording->stop_and_pull(local);
  std::error_code error;
  const auto size = std::filesystem::file_size(local, error);
  return Reply::text("Saved the screen recording (" +
                     format_number(static_cast<double>(recorded.count()) / 1000.0) + " s, " +
                     std::to_string(error ? 0 : (size + 1023) / 1024) + " KiB, MP4) to " +
                     local.string() + ".");
}

Reply record_trajectory_start(Call& call) {
  Page& page = call.page();
  if (page.recording()) {
    throw Error(errc::busy, "a trajectory is already being recorded on this device (" +
                                protocol::printable(page.recording()->options().dir.string()) +
                                "): record_trajectory_stop ends it");
  }
  const std::optional<std::string> given = call.string("path");
  // An agent's path is held to the folders the operator allowed; the default is private.
  const std::filesystem::path dir =
      given ? writable_host_path(call.options().host_files, *given, "record_trajectory_start")
            : call.host().reserve("trajectory");
  const bool screenshots = call.flag("screenshots");
  page.record(std::make_shared<Trajectory>(
      TrajectoryOptions{.dir = dir, .screenshots = screenshots, .inline_snapshots = true}));
  const std::filesystem::path file = dir / "trajectory.jsonl";
  call.host().recordings().add_trajectory(file);
  return Reply::text("Recording a trajectory to " + protocol::printable(file.string()) +
                     ": every call from now on, with the snapshots it saw and the elements it "
                     "acted on" +
                     (screenshots ? ", and a screenshot after each action" : "") +
                     ". record_trajectory_stop ends it.");
}

Reply record_trajectory_stop(Call& call) {
  const std::shared_ptr<Trajectory> trajectory = call.page().record(nullptr);
  if (!trajectory) {
    throw Error(errc::invalid_argument,
                "no trajectory is being recorded on this device: record_trajectory_start begins "
                "one");
  }
  const std::uint64_t steps = trajectory->steps();
  return Reply::text(
      "Saved the trajectory (" + std::to_string(steps) + " step" + (steps == 1 ? "" : "s") +
      ") to " + protocol::printable((trajectory->options().dir / "trajectory.jsonl").string()) +
      ". replay_trajectory plays it again.");
}

Reply replay_trajectory(Call& call) {
  Recordings& recordings = call.host().recordings();
  std::filesystem::path given = call.string("file").value_or(recordings.last_trajectory());
  if (given.empty()) {
    throw Error(errc::invalid_argument,
                "give the trajectory.jsonl to replay: none was recorded here yet");
  }
  std::error_code ignored;
  if (std::filesystem::is_directory(given, ignored)) given /= "trajectory.jsonl";
  // One this surface recorded is read where it is; any other only inside an allowed folder,
  // read through the file opened when it was checked.
  std::optional<CheckedFile> checked;
  if (!recordings.recorded_trajectory(given))
    checked.emplace(open_host_file(call.options().host_files, given.string(), "replay_trajectory"));
  ReplayOptions options;
  options.secret = [&call](std::string_view name) {
    std::string value = secret_value(call.options().secrets, std::string(name), &call.cancel());
    call.host().secret_mask().add(name, value);
    return value;
  };
  const ReplayReport report =
      replay_trajectory(call.page(), checked ? checked->path() : given, options);
  return action_done(call, "Replayed " + std::to_string(report.played) + " action" +
                               (report.played == 1 ? "" : "s") + " of " +
                               protocol::printable(given.string()) + " (" +
                               std::to_string(report.skipped) +
                               " step(s) skipped: reads, and steps that had failed).");
}

}  // namespace adbwire::verbs::handlers
