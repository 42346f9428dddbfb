#include "agent/gesture.hpp"

#include <algorithm>
#include <cmath>

namespace adbwire::agent {
namespace {

// Where a finger is at fraction t (0..1) of its stroke, each segment an equal share of time.
ui::Point along(const Stroke& stroke, double t) {
  if (stroke.size() == 1 || t <= 0) return stroke.front();
  if (t >= 1) return stroke.back();
  const double position = t * static_cast<double>(stroke.size() - 1);
  const auto segment = static_cast<std::size_t>(position);
  const double within = position - static_cast<double>(segment);
  const ui::Point a = stroke[segment];
  const ui::Point b = stroke[std::min(segment + 1, stroke.size() - 1)];
  return {static_cast<std::int32_t>(std::lround(a.x + (b.x - a.x) * within)),
          static_cast<std::int32_t>(std::lround(a.y + (b.y - a.y) * within))};
}

std::vector<ui::Point> fingers_at(std::span<const Stroke> strokes, std::size_t count, double t) {
  std::vector<ui::Point> points;
  points.reserve(count);
  for (std::size_t i = 0; i < count; ++i) points.push_back(along(strokes[i], t));
  return points;
}

}  // namespace

Gesture stroke_gesture(std::span<const Stroke> strokes, std::chrono::milliseconds duration) {
  const std::size_t fingers = strokes.size();
  if (fingers == 0 || fingers > kMaxFingers || duration.count() < 0 || duration > kMaxGestureTime)
    return {};
  if (std::any_of(strokes.begin(), strokes.end(), [](const Stroke& s) { return s.empty(); }))
    return {};
  Gesture gesture;
  gesture.push_back({kActionDown, 0, fingers_at(strokes, 1, 0)});
  for (std::size_t i = 1; i < fingers; ++i) {
    gesture.push_back({kActionPointerDown | static_cast<std::int32_t>(i << kPointerIndexShift), 0,
                       fingers_at(strokes, i + 1, 0)});
  }
  const auto total = static_cast<std::int32_t>(duration.count());
  const auto steps = static_cast<std::int32_t>(std::clamp<std::int64_t>(
      (duration + kStep - std::chrono::milliseconds(1)) / kStep, 1, kMaxSteps));
  for (std::int32_t step = 1; step <= steps; ++step) {
    const double t = static_cast<double>(step) / steps;
    gesture.push_back({kActionMove, static_cast<std::int32_t>(std::lround(t * total)),
                       fingers_at(strokes, fingers, t)});
  }
  for (std::size_t i = fingers - 1; i >= 1; --i) {
    gesture.push_back({kActionPointerUp | static_cast<std::int32_t>(i << kPointerIndexShift), total,
                       fingers_at(strokes, i + 1, 1)});
  }
  gesture.push_back({kActionUp, total, fingers_at(strokes, 1, 1)});
  return gesture;
}

Gesture tap_gesture(ui::Point at) { return {{kActionDown, 0, {at}}, {kActionUp, 0, {at}}}; }

Gesture pinch_gesture(ui::Point center, std::int32_t span_from, std::int32_t span_to,
                      std::chrono::milliseconds duration) {
  const auto finger = [&center](std::int32_t span, std::int32_t side) {
    return ui::Point{center.x + side * (span / 2), center.y};
  };
  // The left finger first; each moves along the line only.
  const std::vector<Stroke> strokes{{finger(span_from, -1), finger(span_to, -1)},
                                    {finger(span_from, 1), finger(span_to, 1)}};
  return stroke_gesture(strokes, duration);
}

std::vector<std::int32_t> gesture_ints(const Gesture& gesture) {
  std::vector<std::int32_t> ints{static_cast<std::int32_t>(gesture.size())};
  for (const TouchEvent& event : gesture) {
    ints.push_back(event.action);
    ints.push_back(event.time_ms);
    ints.push_back(static_cast<std::int32_t>(event.pointers.size()));
    for (const ui::Point& p : event.pointers) {
      ints.push_back(p.x);
      ints.push_back(p.y);
    }
  }
  return ints;
}

std::chrono::milliseconds gesture_length(const Gesture& gesture) noexcept {
  return gesture.empty() ? std::chrono::milliseconds(0)
                         : std::chrono::milliseconds(gesture.back().time_ms);
}

}  // namespace adbwire::agent
