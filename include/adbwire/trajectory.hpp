// Trajectory recording: every Page call with its arguments, result and timing as one JSON
// line, plus the snapshots (text and XML) and optional screenshots around it as files, so a
// run can be audited or replayed step by step.
//
// Layout of TrajectoryOptions::dir:
//   trajectory.jsonl   one object per call:
//     {"step":3,"time_ms":1718000000123,"action":"tap","args":{"ref":"5"},"ok":true,
//      "ms":41.2,"snapshot":"0002-snapshot.txt","screenshot":"0003-after.png"}
//     failures add "error" (adbwire errc name) and "message".
//   NNNN-snapshot.txt / NNNN-snapshot.xml   each snapshot a step took or was based on
//   NNNN-after.png                          with screenshots on, the screen after an action
//
// The files hold what the screen showed, so they are private: dir is created 0700 when missing
// and must belong to this user and not be writable by others; files are created 0600 and never
// through a symbolic link (errors: permission_denied saying what is wrong).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace adbwire {

namespace detail {
struct Failure;
}  // namespace detail

struct TrajectoryOptions {
  std::filesystem::path dir;
  bool screenshots = false;  // a screenshot after every action (one more round trip each)
};

struct TrajectoryStep {
  std::string action;                                     // "tap", "snapshot", …
  std::vector<std::pair<std::string, std::string>> args;  // in call order
  std::error_code error;                                  // empty when the call succeeded
  std::string message;                                    // the error's message
  std::chrono::system_clock::time_point started;
  std::chrono::microseconds duration{0};
  std::string snapshot;    // file (relative to dir) of the snapshot taken or acted on
  std::string screenshot;  // file of the screenshot after the action
};

// One recording. Thread safe: several Pages may share one (steps are numbered in order). The
// error_code overloads leave the message in last_error_detail() (error_detail.hpp).
class Trajectory {
 public:
  // Creates dir (with parents) and opens dir/trajectory.jsonl for appending.
  // Errors: io_error naming the path, permission_denied (see above).
  explicit Trajectory(TrajectoryOptions options);
  Trajectory(TrajectoryOptions options, std::error_code& error);
  ~Trajectory();
  Trajectory(const Trajectory&) = delete;
  Trajectory& operator=(const Trajectory&) = delete;

  const TrajectoryOptions& options() const noexcept { return options_; }

  // Writes bytes to dir/NNNN-<suffix> (NNNN = the number the next step gets) and returns
  // that file name ("" on error). Errors: io_error.
  std::string save(std::string_view suffix, std::string_view bytes);
  std::string save(std::string_view suffix, std::string_view bytes, std::error_code& error);
  // Appends step as one JSON line and flushes it. Errors: io_error.
  void record(const TrajectoryStep& step);
  void record(const TrajectoryStep& step, std::error_code& error);
  // Steps recorded so far.
  std::uint64_t steps() const;

 private:
  struct Files;  // the open folder and log, the step count and the mutex that guards them

  void open(detail::Failure& failure);
  std::string save_file(std::string_view suffix, std::string_view bytes, detail::Failure& failure);
  void append(const TrajectoryStep& step, detail::Failure& failure);

  TrajectoryOptions options_;
  std::unique_ptr<Files> files_;
};

}  // namespace adbwire
