// What a Page holds, shared by the files that implement it: page.cpp (construction, snapshots,
// refs, waiting), page_actions.cpp (input on refs, coordinates and keys), page_device.cpp (the
// device services Page forwards to), page_capabilities.cpp (the capability probe). Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/ocr.hpp"
#include "adbwire/page.hpp"
#include "agent/gesture.hpp"
#include "agent/helper_reader.hpp"
#include "agent/settled_reader.hpp"
#include "agent/stealth.hpp"
#include "agent/trajectory_recorder.hpp"
#include "agent/uiautomator_reader.hpp"
#include "agent/web/web_merge_reader.hpp"
#include "base/failure.hpp"
#include "base/secret_mask.hpp"

namespace adbwire {

// An element to act on: where it is now and what it shows.
struct ActionTarget {
  ui::ElementInfo info;
  std::string label;
  std::string text;
  std::string field;     // what it holds as typed text (ui::field_text)
  std::string web_node;  // "<socket>|<page id>|<backend node id>" of a web element, else ""
};

struct Page::State {
  using Args = std::vector<std::pair<std::string, std::string>>;

  State(Device d, PageOptions o);

  Device device;
  PageOptions options;
  ui::Snapshot snapshot;  // the one refs refer to
  std::string dump;       // its XML
  ui::Snapshot empty;     // what the error_code form of snapshot() returns on error
  bool changed = false;   // an action ran since `snapshot` was taken
  std::string last_error;
  std::optional<Capabilities> capabilities;
  WebStatus web_status;
  OcrStatus ocr_status;
  TextReader text_reader;  // loads Tesseract's model on the first reading
  // The last screenshot's size and its screen's (ScreenPoint::in_screenshot); 0 before one.
  std::uint32_t shot_width = 0, shot_height = 0, shot_screen_width = 0, shot_screen_height = 0;
  // Screen reading, bottom up (agent/screen_reader.hpp).
  agent::UiautomatorReader uiautomator;
  agent::HelperReader helper;
  agent::SettledReader settled;
  agent::web::WebMergeReader web;
  detail::SecretMask secrets;  // typed so far (TypeOptions::secret_name): masked in recordings
  std::unique_ptr<agent::TrajectoryRecorder> recorder;  // with PageOptions::trajectory, record()
  std::optional<agent::Stealth> stealth;                // with PageOptions::stealth
  std::vector<RefCheckReport> ref_checks;               // of the call running or last run
  std::vector<TrajectoryElement> acted_on;              // by the call running, for the recorder
  std::vector<ui::Point> touched;                       // by the call running, for the recorder

  // kDefaultDeadline → now + PageOptions::timeout, one budget for the whole call.
  Deadline resolve(Deadline deadline) const {
    return deadline == kDefaultDeadline ? deadline_after(options.timeout) : deadline;
  }

  // Runs one public call, work(failure), as every call ends: an action that succeeded marks the
  // screen changed, a failure's message is kept for last_error(), and the recorder (if any) gets
  // the call. Returns what work returns.
  template <class Work>
  auto call(std::string_view action, Args args, bool changes_screen, detail::Failure& failure,
            Work&& work) {
    agent::PageCall record{
        action, std::move(args), changes_screen, std::chrono::system_clock::now(), Clock::now(), {},
        {}};
    ref_checks.clear();
    acted_on.clear();
    touched.clear();
    if (changes_screen) human_pause(agent::Stealth::kActionPause);
    if constexpr (std::is_void_v<decltype(work(failure))>) {
      work(failure);
      finish(std::move(record), failure);
    } else {
      auto result = work(failure);
      finish(std::move(record), failure);
      return result;
    }
  }
  void finish(agent::PageCall record, detail::Failure& failure);
  // With stealth on: sleeps a pause drawn from `pause`. Otherwise nothing.
  void human_pause(const agent::Stealth::Pause& pause);
  // Where a tap on the element goes: its clear tap point, or with stealth a random clear point.
  ui::Point tap_point_of(const ui::ElementInfo& info) {
    return stealth ? stealth->tap_point(info) : info.tap_point;
  }

  // The operations behind Page's public calls, each written once against a Failure: Page's two
  // overloads of a call are detail::or_throw and detail::or_code around the one here. Those
  // returning a reference to a snapshot return a pointer (nullptr on failure).
  // page.cpp
  const ui::Snapshot* snapshot_call(Deadline deadline, detail::Failure& failure);
  const ui::Snapshot* wait_for_text(std::string_view text, std::chrono::milliseconds timeout,
                                    detail::Failure& failure);
  const ui::Snapshot* wait_for_idle(std::chrono::milliseconds timeout, detail::Failure& failure);
  // page_actions.cpp
  void tap(std::uint32_t ref, Deadline deadline, detail::Failure& failure);
  void long_press(std::uint32_t ref, Deadline deadline, detail::Failure& failure);
  TypeResult type(std::uint32_t ref, std::string_view text, TypeOptions type_options,
                  Deadline deadline, detail::Failure& failure);
  void scroll(std::uint32_t ref, Direction direction, Deadline deadline, detail::Failure& failure);
  void drag(std::uint32_t from, std::uint32_t to, Deadline deadline, detail::Failure& failure);
  void drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline, detail::Failure& failure);
  void tap_at(ScreenPoint at, Deadline deadline, detail::Failure& failure);
  void long_press_at(ScreenPoint at, Deadline deadline, detail::Failure& failure);
  void swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
             Deadline deadline, detail::Failure& failure);
  void press(std::string_view key_name, Deadline deadline, detail::Failure& failure);
  // page_touch.cpp
  void pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration, Deadline deadline,
             detail::Failure& failure);
  void pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration,
                Deadline deadline, detail::Failure& failure);
  void gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
               std::chrono::milliseconds duration, Deadline deadline, detail::Failure& failure);
  // page_device.cpp
  std::map<std::string, std::string> app_labels(Deadline deadline, detail::Failure& failure);
  void launch(std::string_view package, std::string_view activity, Deadline deadline,
              detail::Failure& failure);
  void stop(std::string_view package, Deadline deadline, detail::Failure& failure);
  ForegroundActivity foreground(Deadline deadline, detail::Failure& failure);
  std::vector<std::string> packages(PackageKind kind, Deadline deadline, detail::Failure& failure);
  void install(const std::filesystem::path& apk, Deadline deadline, detail::Failure& failure);
  void uninstall(std::string_view package, Deadline deadline, detail::Failure& failure);
  std::vector<std::uint8_t> screenshot(Deadline deadline, detail::Failure& failure);
  // page_pixels.cpp
  PageScreenshot screenshot(const ScreenshotOptions& shot, bool marks, Deadline deadline,
                            detail::Failure& failure);
  void clipboard_set(std::string_view text, Deadline deadline, detail::Failure& failure);
  std::string clipboard_get(Deadline deadline, detail::Failure& failure);
  void rotate(Orientation orientation, Deadline deadline, detail::Failure& failure);
  void wake(Deadline deadline, detail::Failure& failure);
  void open_notifications(Deadline deadline, detail::Failure& failure);
  std::chrono::system_clock::time_point device_time(Deadline deadline, detail::Failure& failure);
  std::string setting(SettingsNamespace ns, std::string_view key, Deadline deadline,
                      detail::Failure& failure);
  void put_setting(SettingsNamespace ns, std::string_view key, std::string_view value,
                   Deadline deadline, detail::Failure& failure);
  // page_capabilities.cpp
  const Capabilities* capabilities_call(Deadline deadline, detail::Failure& failure);

  // Helpers of the operations.
  // page.cpp
  const ui::Snapshot& take_snapshot(Deadline deadline, detail::Failure& failure);
  ActionTarget target(std::uint32_t ref, Deadline deadline, detail::Failure& failure);
  // The screen read fresh for a check (the web part only for a web ref).
  ui::Snapshot read_current(bool web_ref, Deadline deadline, detail::Failure& failure);
  std::string describe(const ui::RefInfo& info) const;
  // Snapshots until done(previous dump, or nullptr the first time) holds; timeout names what.
  const ui::Snapshot* wait_until(std::chrono::milliseconds timeout, std::string_view what,
                                 const std::function<bool(const std::string* previous)>& done,
                                 detail::Failure& failure);

  // page_pixels.cpp
  // Whether a freshly parsed reading gets text from its pixels (PageOptions::ocr).
  bool wants_ocr(const ui::Snapshot& parsed) const;
  // Takes a screenshot, reads its text and adds it to xml as kOcrClass nodes in a window of the
  // app, then parses xml again into parsed; fills ocr_status. In automatic mode a missing model
  // is no failure (ocr_status.problem says it).
  void add_ocr(std::string& xml, ui::Snapshot& parsed, Deadline deadline, detail::Failure& failure);
  // The screen read fresh with its text read from the pixels too (the check of an OCR ref).
  ui::Snapshot read_with_ocr(Deadline deadline, detail::Failure& failure);

  // page_actions.cpp
  ui::Point screen_size(Deadline deadline, detail::Failure& failure);
  ui::Point to_pixels(ScreenPoint at, Deadline deadline, detail::Failure& failure);
  // An `input`/`am`/… command line; a non-zero exit or an exception trace is command_failed
  // quoting the output.
  void run(const std::string& command, Deadline deadline, detail::Failure& failure);
  void swipe_px(ui::Point a, ui::Point b, std::chrono::milliseconds duration, Deadline deadline,
                detail::Failure& failure);
  void tap_px(ui::Point at, Deadline deadline, detail::Failure& failure);
  // page_touch.cpp
  // The gesture through the on-device dumper while it can inject, else input_command (an
  // `input` line; "" when `input` cannot do it: not_supported).
  void touch(const agent::Gesture& gesture, const std::string& input_command, Deadline deadline,
             detail::Failure& failure);
  // Two fingers around center from one span to the other; widest: the wider span.
  void pinch_px(ui::Point center, std::int32_t widest, double scale,
                std::chrono::milliseconds duration, Deadline deadline, detail::Failure& failure);
  // input draganddrop (API 31+), else a slow swipe.
  void drag_px(ui::Point from, ui::Point to, Deadline deadline, detail::Failure& failure);
  void key(std::string_view name, Deadline deadline, detail::Failure& failure);
  TypeResult type_text(std::uint32_t ref, std::string_view text, TypeOptions type_options,
                       Deadline deadline, detail::Failure& failure);
  // invalid_argument unless ref names a text field (ui::Node::editable), naming the fields the
  // last snapshot shows.
  void require_text_field(std::uint32_t ref, detail::Failure& failure) const;
  // After the focus tap: until the field shows focused (cheap with the dumper), else settle.
  void wait_for_focus(const ui::RefInfo& field, Deadline deadline, detail::Failure& failure);
  // The field's text after typing, read until it shows `typed` or `settle` passed;
  // command_failed when it still reads `before` (quoting neither when secret_name is given).
  TypeResult read_back(std::uint32_t ref, const ActionTarget& field, std::string_view typed,
                       bool cleared, std::chrono::milliseconds settle, Deadline deadline,
                       detail::Failure& failure, std::string_view secret_name);

  // page_capabilities.cpp
  const Capabilities& probe(Deadline deadline, detail::Failure& failure);
  // The probe's bits for what the on-device dumper serves, from its state now (probe() calls
  // it on every read).
  void refresh_helper_capabilities();
  // not_supported naming what and the API level unless the probe found c.
  void require(Capability c, Deadline deadline, std::string_view what, detail::Failure& failure);
};

}  // namespace adbwire
