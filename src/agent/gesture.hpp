// Touch gestures as MotionEvent sequences for the on-device dumper's 'M' request
// (src/agent/dumper/README.md): what each finger does when, computed on the host so the dumper
// only replays events. Pure functions, unit-tested without a device. Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "adbwire/ui_node.hpp"

namespace adbwire::agent {

// android.view.MotionEvent actions; POINTER_DOWN and POINTER_UP carry the pointer's index in
// bits 8-15.
inline constexpr std::int32_t kActionDown = 0;
inline constexpr std::int32_t kActionUp = 1;
inline constexpr std::int32_t kActionMove = 2;
inline constexpr std::int32_t kActionPointerDown = 5;
inline constexpr std::int32_t kActionPointerUp = 6;
inline constexpr int kPointerIndexShift = 8;

// Android tracks at most ten touch pointers on most panels.
inline constexpr std::size_t kMaxFingers = 10;
// One move every 10 ms, as a 100 Hz touch panel reports; a longer gesture gets longer steps so
// that no gesture has more than kMaxSteps moves.
inline constexpr std::chrono::milliseconds kStep{10};
inline constexpr std::size_t kMaxSteps = 1000;
inline constexpr std::chrono::milliseconds kMaxGestureTime{60000};

// One MotionEvent: pointer i of `pointers` has id i.
struct TouchEvent {
  std::int32_t action = kActionDown;
  std::int32_t time_ms = 0;  // after the gesture's first event
  std::vector<ui::Point> pointers;
};
using Gesture = std::vector<TouchEvent>;

// A finger's path: the points it passes, each segment taking an equal share of the time. One
// point is a finger that stays put.
using Stroke = std::vector<ui::Point>;

// All fingers touch at time 0 (finger 0 first), move along their strokes together for
// `duration`, then lift (the last finger first), so every event holds fingers 0..k-1 as the
// dumper's encoding requires. Empty when there are no fingers, more than kMaxFingers, an empty
// stroke, or a duration outside 0..kMaxGestureTime (the caller checks and says why).
Gesture stroke_gesture(std::span<const Stroke> strokes, std::chrono::milliseconds duration);

// A tap: DOWN and UP at the same instant, as `input tap` sends them.
Gesture tap_gesture(ui::Point at);

// Two fingers on the horizontal line through `center`, from `span_from` pixels apart to
// `span_to` pixels apart: spreading is a zoom in, closing a zoom out.
Gesture pinch_gesture(ui::Point center, std::int32_t span_from, std::int32_t span_to,
                      std::chrono::milliseconds duration);

// The ints of an 'M' request: the event count, then per event its action, time, pointer count
// and x, y of each pointer.
std::vector<std::int32_t> gesture_ints(const Gesture& gesture);

// The time of the gesture's last event.
std::chrono::milliseconds gesture_length(const Gesture& gesture) noexcept;

}  // namespace adbwire::agent
