// replay_trajectory: a recorded run played again, each element found again by what it was.
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/protocol/printable.hpp"
#include "adbwire/trajectory.hpp"

namespace adbwire {
namespace {

using Json = nlohmann::json;

// Calls that only read: nothing to play.
constexpr std::string_view kReads[] = {
    "snapshot",   "wait_for_text", "wait_for_idle", "screenshot",  "foreground", "packages",
    "app_labels", "capabilities",  "clipboard_get", "device_time", "setting",
};

struct Step {
  std::uint64_t number = 0;
  std::string action;
  const Json* line = nullptr;
};

std::string what_of(const Step& step) {
  std::string words = "step " + std::to_string(step.number) + " (" + step.action;
  const Json& elements = step.line->value("elements", Json::array());
  if (elements.is_array() && !elements.empty() && elements[0].is_object()) {
    const Json& label = elements[0].value("label", Json(""));
    if (label.is_string()) words += " " + protocol::printable(label.get<std::string>(), 80);
  }
  return words + ")";
}

[[noreturn]] void bad_line(const std::filesystem::path& file, std::size_t line,
                           const std::string& why) {
  throw Error(errc::parse_error, "line " + std::to_string(line) + " of " +
                                     protocol::printable(file.string()) +
                                     " is not a trajectory step: " + why);
}

std::string arg(const Step& step, const char* name) {
  const Json& args = step.line->value("args", Json::object());
  const auto found = args.find(name);
  if (found == args.end() || !found->is_string()) {
    throw Error(errc::parse_error,
                what_of(step) + " has no \"" + std::string(name) + "\" argument to play");
  }
  return found->get<std::string>();
}

// The ref the element of step has on a fresh snapshot; stale_ref when it is not found there
// exactly once.
std::uint32_t find_again(Page& page, const Step& step, std::size_t index) {
  const Json& elements = step.line->value("elements", Json::array());
  if (!elements.is_array() || elements.size() <= index || !elements[index].is_object())
    throw Error(errc::parse_error, what_of(step) + " does not record the element it acted on");
  const Json& e = elements[index];
  ui::RefInfo old;
  try {
    old.exact_token = e.at("exact_token").get<std::string>();
    old.identity_token = e.at("identity_token").get<std::string>();
    old.look_alikes = e.value("look_alikes", 1U);
    old.label = e.value("label", std::string());
    old.row = e.value("row", std::string());
    const Json& b = e.at("bounds");
    old.bounds = {b.at(0).get<std::int32_t>(), b.at(1).get<std::int32_t>(),
                  b.at(2).get<std::int32_t>(), b.at(3).get<std::int32_t>()};
  } catch (const Json::exception& error) {
    throw Error(errc::parse_error,
                what_of(step) + ": its element's identity is incomplete (" + error.what() + ")");
  }
  const ui::Snapshot& now = page.snapshot();
  const ui::RefMatch match = ui::find_ref(old, now);
  const std::uint32_t ref = match.node == ui::kNoNode ? 0 : now.node(match.node).ref;
  if (ref == 0) {
    throw Error(errc::stale_ref,
                what_of(step) + ": the element " +
                    (match.node == ui::kNoNode ? ui::stale_reason(old, match)
                                               : std::string("is there but no longer has a ref")) +
                    "; this step and the ones after it were not played");
  }
  return ref;
}

ui::Point first_point(const Step& step) {
  const Json& points = step.line->value("points", Json::array());
  try {
    return {points.at(0).at(0).get<std::int32_t>(), points.at(0).at(1).get<std::int32_t>()};
  } catch (const Json::exception&) {
    throw Error(errc::parse_error, what_of(step) + " does not record the point it touched");
  }
}

Direction direction_of(const Step& step) {
  const std::string d = arg(step, "direction");
  if (d == "up") return Direction::up;
  if (d == "down") return Direction::down;
  if (d == "left") return Direction::left;
  if (d == "right") return Direction::right;
  throw Error(errc::parse_error, what_of(step) + " scrolls in no known direction");
}

// The text a type step typed; a secret's value from options.
std::string typed_text(const Step& step, const ReplayOptions& options, TypeOptions& type) {
  std::string text = arg(step, "text");
  constexpr std::string_view kSecret = "<secret ";
  if (text.starts_with(kSecret) && text.ends_with('>')) {
    type.secret_name = text.substr(kSecret.size(), text.size() - kSecret.size() - 1);
    if (!options.secret) {
      throw Error(errc::invalid_argument, what_of(step) + " typed the secret " + type.secret_name +
                                              ", and no secrets are configured to type it again");
    }
    return options.secret(type.secret_name);
  }
  return text;
}

// Plays one action step; false for a read (nothing played).
bool play(Page& page, const Step& step, const ReplayOptions& options) {
  const std::string& a = step.action;
  for (const std::string_view read : kReads) {
    if (a == read) return false;
  }
  if (a == "tap") {
    page.tap(find_again(page, step, 0));
  } else if (a == "long_press") {
    page.long_press(find_again(page, step, 0));
  } else if (a == "scroll") {
    page.scroll(find_again(page, step, 0), direction_of(step));
  } else if (a == "type") {
    TypeOptions type{.clear = arg(step, "clear") == "true",
                     .submit = arg(step, "submit") == "true"};
    std::string text = typed_text(step, options, type);
    const std::uint32_t ref = find_again(page, step, 0);
    page.type(ref, text, type);
    std::fill(text.begin(), text.end(), '\0');
  } else if (a == "tap_at" || a == "long_press_at") {
    const ui::Point p = first_point(step);
    const ScreenPoint at{static_cast<double>(p.x), static_cast<double>(p.y)};
    a == "tap_at" ? page.tap_at(at) : page.long_press_at(at);
  } else if (a == "press") {
    page.press(arg(step, "key"));
  } else if (a == "launch") {
    page.launch(arg(step, "package"), arg(step, "activity"));
  } else if (a == "stop") {
    page.stop(arg(step, "package"));
  } else if (a == "wake") {
    page.wake();
  } else if (a == "open_notifications") {
    page.open_notifications();
  } else {
    throw Error(errc::not_supported, what_of(step) +
                                         ": replay plays taps, long presses, scrolls, typing, "
                                         "keys, launch and stop; this step and the ones after "
                                         "it were not played");
  }
  return true;
}

}  // namespace

ReplayReport replay_trajectory(Page& page, const std::filesystem::path& file,
                               const ReplayOptions& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw Error(errc::io_error, "cannot read the trajectory " + protocol::printable(file.string()));
  }
  ReplayReport report;
  std::string text;
  std::size_t line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    if (text.empty()) continue;
    const Json line = Json::parse(text, nullptr, false);
    if (line.is_discarded() || !line.is_object()) bad_line(file, line_number, "not a JSON object");
    Step step;
    step.line = &line;
    try {
      step.number = line.at("step").get<std::uint64_t>();
      step.action = line.at("action").get<std::string>();
      if (!line.at("ok").get<bool>()) {
        ++report.skipped;  // it failed when recorded: it sent nothing then
        continue;
      }
    } catch (const Json::exception& error) {
      bad_line(file, line_number, error.what());
    }
    bool played = false;
    try {
      played = play(page, step, options);
    } catch (const Error& error) {
      if (error.detail().starts_with("step ")) throw;
      throw Error(error.code(), what_of(step) + ": " + error.detail());
    }
    if (!played) {
      ++report.skipped;
      continue;
    }
    ++report.played;
    if (options.played) options.played(step.number, step.action);
  }
  if (in.bad()) {
    throw Error(errc::io_error, "cannot read the trajectory " + protocol::printable(file.string()));
  }
  return report;
}

}  // namespace adbwire
