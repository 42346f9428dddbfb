// Page's actions: input on refs of the last snapshot, on screen coordinates, and keys
// (docs/design.md, Interactions).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "agent/input_commands.hpp"
#include "agent/page_state.hpp"
#include "agent/web/web_click.hpp"
#include "services/device_command.hpp"

namespace adbwire {
namespace {

// A stealth swipe without the dumper: this many `input swipe` segments along its curve.
constexpr std::size_t kStealthSegments = 4;

std::string_view direction_name(Direction d) {
  switch (d) {
    case Direction::up:
      return "up";
    case Direction::down:
      return "down";
    case Direction::left:
      return "left";
    case Direction::right:
      return "right";
  }
  return "down";
}

std::string point_text(ScreenPoint p) {
  char text[64];
  std::snprintf(text, sizeof text, p.normalized ? "%.4f,%.4f" : "%.0f,%.0f", p.x, p.y);
  return text;
}

std::string tap_command(ui::Point p) {
  return "input tap " + std::to_string(p.x) + " " + std::to_string(p.y);
}

}  // namespace

// ---- helpers

ui::Point Page::State::screen_size(Deadline deadline, detail::Failure& failure) {
  ui::Point size;
  for (const ui::Node& node : snapshot.nodes()) {
    if (node.depth == 0 && node.has_bounds) {
      size.x = std::max(size.x, node.bounds.right);
      size.y = std::max(size.y, node.bounds.bottom);
    }
  }
  if (size.x > 0 && size.y > 0) return size;
  return probe(deadline, failure).screen_size;
}

ui::Point Page::State::to_pixels(ScreenPoint at, Deadline deadline, detail::Failure& failure) {
  if (!std::isfinite(at.x) || !std::isfinite(at.y)) {
    failure.set(errc::invalid_argument, "a coordinate is not a number");
    return {};
  }
  const ui::Point size = screen_size(deadline, failure);
  if (failure) return {};
  ui::Point p;
  if (at.in_screenshot) {
    if (at.normalized) {
      failure.set(errc::invalid_argument,
                  "a point is either normalized or in the screenshot's pixels, not both");
      return {};
    }
    if (shot_width == 0 || shot_height == 0) {
      failure.set(errc::invalid_argument,
                  "no screenshot taken yet: take one, then give points in its pixels");
      return {};
    }
    if (at.x < 0 || at.y < 0 || at.x >= shot_width || at.y >= shot_height) {
      failure.set(errc::invalid_argument, "point " + point_text(at) + " is off the " +
                                              std::to_string(shot_width) + "x" +
                                              std::to_string(shot_height) + " screenshot");
      return {};
    }
    const auto to_screen = [](double v, std::uint32_t shot, std::uint32_t screen) {
      return static_cast<std::int32_t>(
          std::min<double>(std::lround(v * screen / shot), screen - 1));
    };
    p = {to_screen(at.x, shot_width, shot_screen_width),
         to_screen(at.y, shot_height, shot_screen_height)};
  } else if (at.normalized) {
    if (at.x < 0 || at.x > 1 || at.y < 0 || at.y > 1) {
      failure.set(errc::invalid_argument,
                  "normalized coordinates must lie in 0..1, got " + point_text(at));
      return {};
    }
    p = {static_cast<std::int32_t>(std::lround(at.x * std::max(0, size.x - 1))),
         static_cast<std::int32_t>(std::lround(at.y * std::max(0, size.y - 1)))};
  } else {
    p = {static_cast<std::int32_t>(std::lround(at.x)),
         static_cast<std::int32_t>(std::lround(at.y))};
  }
  if (p.x < 0 || p.y < 0 || (size.x > 0 && (p.x >= size.x || p.y >= size.y))) {
    failure.set(errc::invalid_argument, "point " + point_text(at) + " is off the " +
                                            std::to_string(size.x) + "x" + std::to_string(size.y) +
                                            " screen");
    return {};
  }
  return p;
}

void Page::State::run(const std::string& command, Deadline deadline, detail::Failure& failure) {
  detail::run_command(device, command, deadline, detail::OutputCheck::exit_status_and_text,
                      failure);
}

void Page::State::human_pause(const agent::Stealth::Pause& pause) {
  if (stealth) std::this_thread::sleep_for(stealth->pause(pause));
}

void Page::State::swipe_px(ui::Point a, ui::Point b, std::chrono::milliseconds duration,
                           Deadline deadline, detail::Failure& failure) {
  touched.push_back(a);
  if (a != b) touched.push_back(b);
  if (stealth && (a.x != b.x || a.y != b.y)) {
    // A curved path: the dumper moves the finger along it; `input swipe` draws it as segments,
    // each its share of the time.
    duration = stealth->swipe_duration(duration);
    const std::vector<ui::Point> path = stealth->swipe_path(a, b, kStealthSegments + 1);
    std::string segments;
    const auto each = std::max<std::int64_t>(1, duration.count() / kStealthSegments);
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      segments += (segments.empty() ? "input swipe " : " && input swipe ") +
                  std::to_string(path[i].x) + " " + std::to_string(path[i].y) + " " +
                  std::to_string(path[i + 1].x) + " " + std::to_string(path[i + 1].y) + " " +
                  std::to_string(each);
    }
    const std::vector<agent::Stroke> finger{path};
    touch(agent::stroke_gesture(finger, duration), segments, deadline, failure);
    return;
  }
  const std::vector<agent::Stroke> finger{{a, b}};
  touch(agent::stroke_gesture(finger, duration),
        "input swipe " + std::to_string(a.x) + " " + std::to_string(a.y) + " " +
            std::to_string(b.x) + " " + std::to_string(b.y) + " " +
            std::to_string(duration.count()),
        deadline, failure);
}

void Page::State::tap_px(ui::Point at, Deadline deadline, detail::Failure& failure) {
  touched.push_back(at);
  touch(agent::tap_gesture(at), tap_command(at), deadline, failure);
}

void Page::State::key(std::string_view name, Deadline deadline, detail::Failure& failure) {
  const std::optional<std::string> code = agent::key_code(name);
  if (!code) {
    failure.set(errc::invalid_argument,
                "unknown key '" + std::string(name) +
                    "'; use back, home, enter, delete, tab, escape, up, down, left, right, "
                    "space, power, volup, voldown, recent, menu, paste, a KEYCODE_ name or a "
                    "number");
    return;
  }
  run("input keyevent " + detail::shell_quote(*code), deadline, failure);
}

// ---- actions on refs

void Page::State::tap(std::uint32_t ref, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("tap", {{"ref", std::to_string(ref)}}, true, failure, [&](detail::Failure& f) {
    const ActionTarget t = target(ref, d, f);
    if (f) return;
    if (!t.web_node.empty() && options.web_input == PageOptions::WebInput::cdp) {
      agent::web::click_web_node(device, t.web_node, d, f);
      return;
    }
    tap_px(tap_point_of(t.info), d, f);
  });
}

void Page::State::long_press(std::uint32_t ref, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("long_press", {{"ref", std::to_string(ref)}}, true, failure, [&](detail::Failure& f) {
    const ActionTarget t = target(ref, d, f);
    if (f) return;
    const ui::Point at = tap_point_of(t.info);
    swipe_px(at, at, options.long_press, d, f);
  });
}

void Page::State::scroll(std::uint32_t ref, Direction direction, Deadline deadline,
                         detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("scroll",
       {{"ref", std::to_string(ref)}, {"direction", std::string(direction_name(direction))}}, true,
       failure, [&](detail::Failure& f) {
         const ActionTarget t = target(ref, d, f);
         if (f) return;
         const ui::Point from = t.info.bounds.center();
         const std::int32_t dx = t.info.bounds.width() / 3;
         const std::int32_t dy = t.info.bounds.height() / 3;
         ui::Point to = from;
         // The finger moves against the direction of travel: scrolling down drags content up.
         switch (direction) {
           case Direction::down:
             to.y -= dy;
             break;
           case Direction::up:
             to.y += dy;
             break;
           case Direction::right:
             to.x -= dx;
             break;
           case Direction::left:
             to.x += dx;
             break;
         }
         swipe_px(from, to, options.swipe, d, f);
       });
}

void Page::State::drag(std::uint32_t from, std::uint32_t to, Deadline deadline,
                       detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("drag", {{"from", std::to_string(from)}, {"to", std::to_string(to)}}, true, failure,
       [&](detail::Failure& f) {
         const ActionTarget a = target(from, d, f);
         if (f) return;
         const ActionTarget b = target(to, d, f);
         if (f) return;
         drag_px(a.info.tap_point, b.info.tap_point, d, f);
       });
}

void Page::State::drag_px(ui::Point p, ui::Point q, Deadline deadline, detail::Failure& failure) {
  const bool drag_and_drop = probe(deadline, failure).has(Capability::drag_and_drop);
  if (failure) return;
  if (drag_and_drop) {
    run("input draganddrop " + std::to_string(p.x) + " " + std::to_string(p.y) + " " +
            std::to_string(q.x) + " " + std::to_string(q.y) + " " +
            std::to_string(options.drag.count()),
        deadline, failure);
  } else {
    swipe_px(p, q, options.drag, deadline, failure);
  }
}

// ---- actions on coordinates

void Page::State::drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline,
                          detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("drag_at", {{"from", point_text(from)}, {"to", point_text(to)}}, true, failure,
       [&](detail::Failure& f) {
         const ui::Point p = to_pixels(from, d, f);
         if (f) return;
         const ui::Point q = to_pixels(to, d, f);
         if (!f) drag_px(p, q, d, f);
       });
}

void Page::State::tap_at(ScreenPoint at, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("tap_at", {{"at", point_text(at)}}, true, failure, [&](detail::Failure& f) {
    const ui::Point p = to_pixels(at, d, f);
    if (!f) tap_px(p, d, f);
  });
}

void Page::State::long_press_at(ScreenPoint at, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("long_press_at", {{"at", point_text(at)}}, true, failure, [&](detail::Failure& f) {
    const ui::Point p = to_pixels(at, d, f);
    if (!f) swipe_px(p, p, options.long_press, d, f);
  });
}

void Page::State::swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
                        Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("swipe",
       {{"from", point_text(from)},
        {"to", point_text(to)},
        {"ms", std::to_string(duration.count())}},
       true, failure, [&](detail::Failure& f) {
         if (duration.count() < 0) {
           f.set(errc::invalid_argument, "a swipe cannot take negative time");
           return;
         }
         const ui::Point a = to_pixels(from, d, f);
         if (f) return;
         const ui::Point b = to_pixels(to, d, f);
         if (!f) swipe_px(a, b, duration.count() == 0 ? options.swipe : duration, d, f);
       });
}

// ---- keys

void Page::State::press(std::string_view key_name, Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("press", {{"key", std::string(key_name)}}, true, failure,
       [&](detail::Failure& f) { key(key_name, d, f); });
}

// ---- the public overloads

void Page::tap(std::uint32_t ref, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->tap(ref, deadline, f); });
}
void Page::tap(std::uint32_t ref, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->tap(ref, deadline, f); });
}

void Page::long_press(std::uint32_t ref, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->long_press(ref, deadline, f); });
}
void Page::long_press(std::uint32_t ref, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->long_press(ref, deadline, f); });
}

void Page::scroll(std::uint32_t ref, Direction direction, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->scroll(ref, direction, deadline, f); });
}
void Page::scroll(std::uint32_t ref, Direction direction, Deadline deadline,
                  std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->scroll(ref, direction, deadline, f); });
}

void Page::drag(std::uint32_t from, std::uint32_t to, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->drag(from, to, deadline, f); });
}
void Page::drag(std::uint32_t from, std::uint32_t to, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->drag(from, to, deadline, f); });
}

void Page::drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->drag_at(from, to, deadline, f); });
}
void Page::drag_at(ScreenPoint from, ScreenPoint to, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->drag_at(from, to, deadline, f); });
}

void Page::tap_at(ScreenPoint at, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->tap_at(at, deadline, f); });
}
void Page::tap_at(ScreenPoint at, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->tap_at(at, deadline, f); });
}

void Page::long_press_at(ScreenPoint at, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->long_press_at(at, deadline, f); });
}
void Page::long_press_at(ScreenPoint at, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->long_press_at(at, deadline, f); });
}

void Page::swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
                 Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->swipe(from, to, duration, deadline, f); });
}
void Page::swipe(ScreenPoint from, ScreenPoint to, std::chrono::milliseconds duration,
                 Deadline deadline, std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { state_->swipe(from, to, duration, deadline, f); });
}

void Page::press(std::string_view key, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->press(key, deadline, f); });
}
void Page::press(std::string_view key, Deadline deadline, std::error_code& error) {
  detail::or_code(error, [&](detail::Failure& f) { state_->press(key, deadline, f); });
}
void Page::back(Deadline deadline) { press("back", deadline); }
void Page::back(Deadline deadline, std::error_code& error) { press("back", deadline, error); }
void Page::home(Deadline deadline) { press("home", deadline); }
void Page::home(Deadline deadline, std::error_code& error) { press("home", deadline, error); }
void Page::recent(Deadline deadline) { press("recent", deadline); }
void Page::recent(Deadline deadline, std::error_code& error) { press("recent", deadline, error); }

}  // namespace adbwire
