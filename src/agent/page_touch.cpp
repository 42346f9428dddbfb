// Page's touch gestures: single-finger input through the on-device dumper when it can inject
// (else `input`), and the multi-touch gestures only the dumper can make (pinch, gesture).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agent/page_state.hpp"
#include "base/advice.hpp"

namespace adbwire {
namespace {

constexpr double kMinScale = 0.1;
constexpr double kMaxScale = 10;
// The wider span of a pinch, as a share of the element's (or screen's) smaller side: room for
// both fingers inside it.
constexpr double kPinchShare = 0.8;

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void check_scale(double scale, detail::Failure& failure) {
  if (!std::isfinite(scale) || scale < kMinScale || scale > kMaxScale || scale == 1) {
    failure.set(errc::invalid_argument,
                "pinch scale " + number_text(scale) +
                    ": give a factor from 0.1 to 10 other than 1 (above 1 spreads the fingers, "
                    "zooming in; below 1 closes them, zooming out)");
  }
}

}  // namespace

void Page::State::touch(const agent::Gesture& gesture, const std::string& input_command,
                        Deadline deadline, detail::Failure& failure) {
  if (!gesture.empty() && helper.gestures_usable() && helper.inject(gesture, deadline, failure))
    return;
  if (!input_command.empty()) {
    run(input_command, deadline, failure);
    return;
  }
  std::string why = helper.status().input_error;
  if (why.empty() && options.helper != PageOptions::Helper::off)
    why = "the on-device dumper failed: " + helper.status().last_error;
  failure.set(
      errc::not_supported,
      "multi-touch gestures need adbwire's on-device dumper (`input` has no multi-touch)" +
          (why.empty() ? ": open the page with " +
                             std::string(detail::advice("--helper auto (PageOptions::helper)",
                                                        "PageOptions(helper=\"auto\")"))
                       : "; on this device " + why));
}

void Page::State::pinch_px(ui::Point center, std::int32_t widest, double scale,
                           std::chrono::milliseconds duration, Deadline deadline,
                           detail::Failure& failure) {
  if (duration.count() < 0 || duration > agent::kMaxGestureTime) {
    failure.set(errc::invalid_argument,
                "a pinch takes 0 to 60000 ms, not " + std::to_string(duration.count()));
    return;
  }
  const double factor = scale > 1 ? scale : 1 / scale;
  const auto narrow =
      std::max<std::int32_t>(2, static_cast<std::int32_t>(std::lround(widest / factor)));
  const std::int32_t from = scale > 1 ? narrow : widest;
  const std::int32_t to = scale > 1 ? widest : narrow;
  touch(agent::pinch_gesture(center, from, to, duration.count() == 0 ? options.swipe : duration),
        "", deadline, failure);
}

void Page::State::pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration,
                        Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("pinch",
       {{"ref", std::to_string(ref)},
        {"scale", number_text(scale)},
        {"ms", std::to_string(duration.count())}},
       true, failure, [&](detail::Failure& f) {
         check_scale(scale, f);
         if (f) return;
         const ActionTarget t = target(ref, d, f);
         if (f) return;
         const ui::Bounds& b = t.info.bounds;
         const auto widest =
             static_cast<std::int32_t>(std::lround(kPinchShare * std::min(b.width(), b.height())));
         pinch_px(b.center(), widest, scale, duration, d, f);
       });
}

void Page::State::pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration,
                           Deadline deadline, detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("pinch_at",
       {{"at", number_text(center.x) + "," + number_text(center.y)},
        {"scale", number_text(scale)},
        {"ms", std::to_string(duration.count())}},
       true, failure, [&](detail::Failure& f) {
         check_scale(scale, f);
         if (f) return;
         const ui::Point c = to_pixels(center, d, f);
         if (f) return;
         const ui::Point size = screen_size(d, f);
         if (f) return;
         // Fingers stop at the screen's edge: the span is what fits on both sides of c.
         const std::int32_t room = 2 * std::min(c.x, std::max(0, size.x - 1 - c.x));
         const auto share =
             static_cast<std::int32_t>(std::lround(kPinchShare * std::min(size.x, size.y)));
         pinch_px(c, std::max(2, std::min(share, room)), scale, duration, d, f);
       });
}

void Page::State::gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
                          std::chrono::milliseconds duration, Deadline deadline,
                          detail::Failure& failure) {
  const Deadline d = resolve(deadline);
  call("gesture",
       {{"fingers", std::to_string(fingers.size())}, {"ms", std::to_string(duration.count())}},
       true, failure, [&](detail::Failure& f) {
         if (fingers.empty() || fingers.size() > agent::kMaxFingers) {
           f.set(errc::invalid_argument,
                 "a gesture has 1 to 10 fingers, not " + std::to_string(fingers.size()));
           return;
         }
         if (duration.count() < 0 || duration > agent::kMaxGestureTime) {
           f.set(errc::invalid_argument,
                 "a gesture takes 0 to 60000 ms, not " + std::to_string(duration.count()));
           return;
         }
         std::vector<agent::Stroke> strokes;
         for (std::size_t i = 0; i < fingers.size(); ++i) {
           if (fingers[i].empty()) {
             f.set(errc::invalid_argument,
                   "finger " + std::to_string(i + 1) + " of the gesture has no points");
             return;
           }
           agent::Stroke& stroke = strokes.emplace_back();
           for (const ScreenPoint& at : fingers[i]) {
             stroke.push_back(to_pixels(at, d, f));
             if (f) return;
           }
         }
         // One finger going straight (or holding still) is a swipe, which `input` can make.
         if (strokes.size() == 1 && strokes[0].size() <= 2) {
           swipe_px(strokes[0].front(), strokes[0].back(), duration, d, f);
           return;
         }
         touch(agent::stroke_gesture(strokes, duration), "", d, f);
       });
}

// ---- the public overloads

void Page::pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration,
                 Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->pinch(ref, scale, duration, deadline, f); });
}
void Page::pinch(std::uint32_t ref, double scale, std::chrono::milliseconds duration,
                 Deadline deadline, std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { state_->pinch(ref, scale, duration, deadline, f); });
}

void Page::pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration,
                    Deadline deadline) {
  detail::or_throw(
      [&](detail::Failure& f) { state_->pinch_at(center, scale, duration, deadline, f); });
}
void Page::pinch_at(ScreenPoint center, double scale, std::chrono::milliseconds duration,
                    Deadline deadline, std::error_code& error) {
  detail::or_code(
      error, [&](detail::Failure& f) { state_->pinch_at(center, scale, duration, deadline, f); });
}

void Page::gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
                   std::chrono::milliseconds duration, Deadline deadline) {
  detail::or_throw([&](detail::Failure& f) { state_->gesture(fingers, duration, deadline, f); });
}
void Page::gesture(const std::vector<std::vector<ScreenPoint>>& fingers,
                   std::chrono::milliseconds duration, Deadline deadline, std::error_code& error) {
  detail::or_code(error,
                  [&](detail::Failure& f) { state_->gesture(fingers, duration, deadline, f); });
}

}  // namespace adbwire
