// Trajectory recording: every Page call with its arguments, result and timing as one JSON
// line, plus the snapshots (text and XML) and optional screenshots around it as files, so a
// run can be audited or replayed step by step.
//
// Layout of TrajectoryOptions::dir:
//   trajectory.jsonl   one object per call:
//     {"step":3,"time_ms":1718000000123,"action":"tap","args":{"ref":"5"},"ok":true,
//      "ms":41.2,"snapshot":"0002-snapshot.txt","screenshot":"0003-after.png"}
//     failures add "error" (adbwire errc name) and "message". Every step based on a snapshot
//     adds "snapshot_hash" (SHA-256 of its text as saved); an action on an element adds
//     "elements" (each element's recorded identity, TrajectoryElement) and "points" ([x,y]
//     pixels touched); with inline_snapshots the step that took a snapshot carries its text as
//     "observation" instead of the NNNN-snapshot files. docs/trajectory.md has the schema.
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
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "adbwire/ui.hpp"

namespace adbwire {

class Page;

namespace detail {
struct Failure;
}  // namespace detail

struct TrajectoryOptions {
  std::filesystem::path dir;
  bool screenshots = false;  // a screenshot after every action (one more round trip each)
  // The snapshot's text goes into the step's line ("observation"), so trajectory.jsonl alone
  // holds the run; the NNNN-snapshot files are not written.
  bool inline_snapshots = false;
};

// What an action's element was when it was acted on: what replay_trajectory finds it by on a
// fresh snapshot (the ref's tokens, ui::RefInfo) and what a person reads (the rest).
struct TrajectoryElement {
  std::uint32_t ref = 0;
  std::string label;  // Button "Add item"
  std::string row;    // the first labels of its row, ui::RefInfo::row
  std::string package, class_name, resource_id, text, content_desc;
  ui::Bounds bounds;
  std::string exact_token;     // ui::RefInfo::exact_token
  std::string identity_token;  // ui::RefInfo::identity_token
  std::uint32_t look_alikes = 0;
};

struct TrajectoryStep {
  std::string action;                                     // "tap", "snapshot", …
  std::vector<std::pair<std::string, std::string>> args;  // in call order
  std::error_code error;                                  // empty when the call succeeded
  std::string message;                                    // the error's message
  std::chrono::system_clock::time_point started;
  std::chrono::microseconds duration{0};
  std::string snapshot;       // file (relative to dir) of the snapshot taken or acted on
  std::string screenshot;     // file of the screenshot after the action
  std::string snapshot_hash;  // "sha256:<hex>" of the snapshot's text as saved
  std::string observation;    // the snapshot's text, with TrajectoryOptions::inline_snapshots
  std::vector<TrajectoryElement> elements;  // the elements acted on, in the call's order
  std::vector<ui::Point> points;            // the pixels touched (a tap's point, a swipe's ends)
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

// "sha256:<hex>" of text: how a step names the snapshot it saw.
std::string snapshot_hash(std::string_view text);

struct ReplayOptions {
  // The value of a secret a step typed (recorded as "<secret NAME>"); unset: such a step is an
  // error (invalid_argument naming it).
  std::function<std::string(std::string_view name)> secret;
  // Steps that ran on the device as recorded, for a report; may be null.
  std::function<void(std::uint64_t step, std::string_view action)> played;
};

struct ReplayReport {
  std::uint64_t played = 0;   // actions sent to the device
  std::uint64_t skipped = 0;  // reads (snapshot, screenshot, waits) and steps that had failed
};

// Plays the actions of trajectory.jsonl at `file` on page, in order. Each action on an element
// takes a fresh snapshot and finds the element by its recorded identity (ui::find_ref on its
// tokens: the same element, or the one element like it that moved); when none or several
// match, it stops there and sends nothing for that step. Steps that failed when recorded and
// reads are skipped.
// Errors: stale_ref "step N (tap Button "Add item"): …" at the first element not found;
// not_supported for an action replay cannot play (drag, pinch, gesture …) naming the step;
// parse_error for a line that is not a step of this schema (naming the line); invalid_argument
// for a secret with no ReplayOptions::secret; io_error when the file cannot be read; the
// Page's own errors with "step N: " before their message.
ReplayReport replay_trajectory(Page& page, const std::filesystem::path& file,
                               const ReplayOptions& options = {});

}  // namespace adbwire
