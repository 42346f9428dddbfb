// Page: construction, snapshots, refs and waiting. Actions are in page_actions.cpp, the device
// services Page forwards to in page_device.cpp, the capability probe in page_capabilities.cpp.
#include "adbwire/page.hpp"

#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "adbwire/protocol/printable.hpp"
#include "adbwire/trajectory.hpp"
#include "agent/page_state.hpp"
#include "agent/web/web_snapshot.hpp"

namespace adbwire {
namespace {

constexpr std::chrono::milliseconds kPollPause{250};

std::string unique_dump_path() {
  static std::atomic<std::uint32_t> counter{0};
  std::random_device random;
  return "/data/local/tmp/adbwire-" + std::to_string(::getpid()) + "-" +
         std::to_string(random() % 100000) + "-" + std::to_string(counter++) + ".xml";
}

PageOptions with_dump_path(PageOptions options) {
  if (options.dump_path.empty()) options.dump_path = unique_dump_path();
  return options;
}

std::string web_node_of(const ui::Snapshot& snapshot, ui::NodeIndex node) {
  for (const ui::Attribute& a : snapshot.extra_attributes(node)) {
    if (a.name == agent::web::kWebNodeAttribute) return std::string(a.value);
  }
  return {};
}

}  // namespace

Page::State::State(Device d, PageOptions o)
    : device(std::move(d)),
      options(with_dump_path(std::move(o))),
      uiautomator(device, options.dump_method, options.dump_path),
      helper(device, options, uiautomator),
      settled(helper, options.dump_attempts, options.dump_retry_pause),
      web(device, settled, options.web, options.web_timeout) {
  if (options.stealth.on)
    stealth.emplace(options.stealth.seed != 0 ? options.stealth.seed : agent::random_seed());
  if (options.trajectory) {
    recorder = std::make_unique<agent::TrajectoryRecorder>(options.trajectory, device, secrets,
                                                           options.timeout);
  }
}

void Page::State::finish(agent::PageCall record, detail::Failure& failure) {
  const bool changes_screen = record.changes_screen;
  if (recorder) {
    record.elements = std::move(acted_on);
    record.points = std::move(touched);
    const detail::Failure result = failure;
    recorder->call_finished(std::move(record), result, failure);
  }
  if (failure) {
    last_error = Error(failure.code, failure.detail).what();
  } else if (changes_screen) {
    changed = true;
  }
}

const ui::Snapshot& Page::State::take_snapshot(Deadline deadline, detail::Failure& failure) {
  std::string output = web.read(deadline, failure);
  if (failure) return empty;
  const agent::web::MergeReport& report = web.last_report();
  web_status = {report.webviews, report.pages, report.web_nodes, report.problem};
  std::error_code error;
  std::string detail;
  ui::Snapshot fresh = ui::parse_dump(output, options.snapshot, error, &detail);
  if (error) {
    failure.set(error, std::move(detail));
    return empty;
  }
  ocr_status = {};
  if (wants_ocr(fresh)) {
    add_ocr(output, fresh, deadline, failure);
    if (failure) return empty;
  }
  snapshot = std::move(fresh);
  dump = std::move(output);
  changed = false;
  if (recorder) recorder->snapshot_taken(snapshot, dump, failure);
  return snapshot;
}

ActionTarget Page::State::target(std::uint32_t ref, Deadline deadline, detail::Failure& failure) {
  const ui::RefInfo* info = snapshot.ref(ref);
  if (info == nullptr) {
    const std::size_t count = snapshot.refs().size();
    failure.set(errc::not_found,
                count == 0 ? "ref " + std::to_string(ref) +
                                 ": there is no snapshot with refs yet; take a snapshot first"
                           : "ref " + std::to_string(ref) +
                                 " was not issued by the last snapshot (it has refs 1-" +
                                 std::to_string(count) + ")");
    return {};
  }
  if (recorder) acted_on.push_back(agent::recorded_element(snapshot, *info));
  const bool check = options.ref_check == RefCheck::always ||
                     (options.ref_check == RefCheck::when_changed && changed);
  const ui::Bounds issued = snapshot.info(info->node).bounds;
  const auto found = [&](const ui::Snapshot& in, ui::NodeIndex node) {
    const ui::Node& n = in.node(node);
    return ActionTarget{in.info(node), info->label, std::string(n.text),
                        std::string(ui::field_text(n)), web_node_of(in, node)};
  };
  if (!check) {
    ref_checks.push_back({ref, false, false, !snapshot.node(info->node).enabled, issued, issued});
    return found(snapshot, info->node);
  }
  // Tokens are node-local, so a native ref resolves in a reading without the web part, and the
  // DevTools round trips (up to web_timeout) are paid only for a web ref.
  const ui::Snapshot current =
      snapshot.node(info->node).class_name == ui::kOcrClass
          ? read_with_ocr(deadline, failure)
          : read_current(!web_node_of(snapshot, info->node).empty(), deadline, failure);
  if (failure) return {};
  const ui::RefMatch match = ui::find_ref(*info, current);
  if (match.node == ui::kNoNode) {
    failure.set(errc::stale_ref, "ref " + std::to_string(ref) + " (" + describe(*info) + ") " +
                                     ui::stale_reason(*info, match) +
                                     ": the screen changed since the last snapshot; nothing was "
                                     "sent. Take a new snapshot and use its refs");
    return {};
  }
  ref_checks.push_back({ref, true, match.kind == ui::RefMatch::Kind::moved,
                        !current.node(match.node).enabled, issued,
                        current.info(match.node).bounds});
  return found(current, match.node);
}

ui::Snapshot Page::State::read_current(bool web_ref, Deadline deadline, detail::Failure& failure) {
  agent::ScreenReader& reader = web_ref ? static_cast<agent::ScreenReader&>(web) : settled;
  std::string output = reader.read(deadline, failure);
  if (failure) return {};
  std::error_code error;
  std::string detail;
  ui::Snapshot current = ui::parse_dump(std::move(output), options.snapshot, error, &detail);
  if (error) failure.set(error, std::move(detail));
  return current;
}

std::string Page::State::describe(const ui::RefInfo& info) const {
  std::string label = info.label;
  const std::string in_row = info.row.empty() ? std::string() : " in the row \"" + info.row + "\"";
  if (label.find('"') != std::string::npos || info.node >= snapshot.nodes().size())
    return label + in_row;
  // A list row is a Group whose children hold its text.
  const ui::Node& node = snapshot.node(info.node);
  for (ui::NodeIndex n = info.node + 1; n < node.subtree_end; ++n) {
    if (!snapshot.node(n).text.empty())
      return label + " holding \"" + protocol::printable(snapshot.node(n).text, 60) + "\"" + in_row;
  }
  return label + in_row;
}

const ui::Snapshot* Page::State::wait_until(
    std::chrono::milliseconds timeout, std::string_view what,
    const std::function<bool(const std::string* previous)>& done, detail::Failure& failure) {
  const Deadline deadline = deadline_after(timeout);
  std::optional<std::string> previous;
  for (;;) {
    take_snapshot(deadline, failure);
    if (failure) return nullptr;
    if (done(previous ? &*previous : nullptr)) return &snapshot;
    previous = dump;
    if (Clock::now() + kPollPause >= deadline) {
      failure.set(errc::timeout,
                  std::string(what) + " within " + std::to_string(timeout.count()) + " ms");
      return nullptr;
    }
    std::this_thread::sleep_for(kPollPause);
  }
}

// ---- construction

Page Page::connect(std::string_view target, PageOptions options,
                   const ConnectOptions& connect_options) {
  return Page(Device::connect(target, connect_options), std::move(options));
}

Page Page::connect(std::string_view target, PageOptions options,
                   const ConnectOptions& connect_options, std::error_code& error) {
  Device device = Device::connect(target, connect_options, error);
  return Page(std::move(device), std::move(options));
}

Page::Page(Device device, PageOptions options)
    : state_(std::make_unique<State>(std::move(device), std::move(options))) {}
Page::Page(Page&&) noexcept = default;
Page& Page::operator=(Page&&) noexcept = default;
Page::~Page() = default;

Device& Page::device() noexcept { return state_->device; }
const PageOptions& Page::options() const noexcept { return state_->options; }
const std::string& Page::last_error() const noexcept { return state_->last_error; }
const ui::Snapshot& Page::last_snapshot() const noexcept { return state_->snapshot; }
const std::string& Page::last_dump() const noexcept { return state_->dump; }
const HelperStatus& Page::helper_status() const noexcept { return state_->helper.status(); }
const WebStatus& Page::web_status() const noexcept { return state_->web_status; }
const OcrStatus& Page::ocr_status() const noexcept { return state_->ocr_status; }
void Page::set_ocr(PageOptions::Ocr mode) noexcept { state_->options.ocr = mode; }

std::span<const RefCheckReport> Page::last_ref_checks() const noexcept {
  return state_->ref_checks;
}

std::shared_ptr<Trajectory> Page::record(std::shared_ptr<Trajectory> trajectory) {
  State& s = *state_;
  std::shared_ptr<Trajectory> previous = std::move(s.options.trajectory);
  s.recorder.reset();
  s.options.trajectory = std::move(trajectory);
  if (s.options.trajectory) {
    s.recorder = std::make_unique<agent::TrajectoryRecorder>(s.options.trajectory, s.device,
                                                             s.secrets, s.options.timeout);
    // The refs an agent holds now are the last snapshot's: the first step acts on it.
    if (!s.snapshot.nodes().empty()) {
      detail::Failure failure;
      s.recorder->snapshot_taken(s.snapshot, s.dump, failure);
      if (failure) {
        s.recorder.reset();
        s.options.trajectory.reset();
        detail::or_throw([&](detail::Failure& f) { f = failure; });
      }
    }
  }
  return previous;
}

const std::shared_ptr<Trajectory>& Page::recording() const noexcept {
  return state_->options.trajectory;
}

std::string_view to_string(RefCheck check) noexcept {
  switch (check) {
    case RefCheck::always:
      return "always";
    case RefCheck::when_changed:
      return "when_changed";
    case RefCheck::never:
      return "never";
  }
  return "?";
}

bool parse_ref_check(std::string_view text, RefCheck& out) noexcept {
  for (const RefCheck check : {RefCheck::always, RefCheck::when_changed, RefCheck::never}) {
    if (text == to_string(check)) {
      out = check;
      return true;
    }
  }
  return false;
}

// ---- snapshot and waiting

const ui::Snapshot* Page::State::snapshot_call(Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  return call("snapshot", {}, false, failure, [&](detail::Failure& f) {
    const ui::Snapshot& taken = take_snapshot(d, f);
    return f ? nullptr : &taken;
  });
}

const ui::Snapshot* Page::State::wait_for_text(std::string_view text,
                                               std::chrono::milliseconds timeout,
                                               detail::Failure& failure) {
  return call("wait_for_text",
              {{"text", std::string(text)}, {"timeout_ms", std::to_string(timeout.count())}}, false,
              failure, [&](detail::Failure& f) {
                return wait_until(
                    timeout, "\"" + std::string(text) + "\" did not appear on the screen",
                    [&](const std::string*) { return !snapshot.find(text).empty(); }, f);
              });
}

const ui::Snapshot* Page::State::wait_for_idle(std::chrono::milliseconds timeout,
                                               detail::Failure& failure) {
  return call(
      "wait_for_idle", {{"timeout_ms", std::to_string(timeout.count())}}, false, failure,
      [&](detail::Failure& f) {
        return wait_until(
            timeout, "the screen did not stop changing",
            [&](const std::string* previous) { return previous != nullptr && *previous == dump; },
            f);
      });
}

const ui::Snapshot& Page::snapshot(Deadline deadline) {
  return *detail::or_throw([&](detail::Failure& f) { return state_->snapshot_call(deadline, f); });
}
const ui::Snapshot& Page::snapshot(Deadline deadline, std::error_code& error) {
  const ui::Snapshot* taken = detail::or_code(
      error, [&](detail::Failure& f) { return state_->snapshot_call(deadline, f); });
  return taken != nullptr ? *taken : state_->empty;
}

const ui::Snapshot& Page::wait_for_text(std::string_view text, std::chrono::milliseconds timeout) {
  return *detail::or_throw(
      [&](detail::Failure& f) { return state_->wait_for_text(text, timeout, f); });
}
const ui::Snapshot& Page::wait_for_text(std::string_view text, std::chrono::milliseconds timeout,
                                        std::error_code& error) {
  const ui::Snapshot* found = detail::or_code(
      error, [&](detail::Failure& f) { return state_->wait_for_text(text, timeout, f); });
  return found != nullptr ? *found : state_->empty;
}

const ui::Snapshot& Page::wait_for_idle(std::chrono::milliseconds timeout) {
  return *detail::or_throw([&](detail::Failure& f) { return state_->wait_for_idle(timeout, f); });
}
const ui::Snapshot& Page::wait_for_idle(std::chrono::milliseconds timeout, std::error_code& error) {
  const ui::Snapshot* settled =
      detail::or_code(error, [&](detail::Failure& f) { return state_->wait_for_idle(timeout, f); });
  return settled != nullptr ? *settled : state_->empty;
}

}  // namespace adbwire
