// Touch gestures as the on-device dumper replays them: the MotionEvent order Android's input
// dispatcher accepts (DOWN, POINTER_DOWN per extra finger, moves with every finger, POINTER_UP
// from the last finger, UP), the timing, the bounds on size, and the 'M' request's bytes.
#include "agent/gesture.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "agent/helper_protocol.hpp"

namespace adbwire::agent {
namespace {

using namespace std::chrono_literals;

std::int32_t masked(std::int32_t action) { return action & 0xff; }
std::int32_t index_of(std::int32_t action) { return action >> kPointerIndexShift; }

TEST(Gesture, ATapIsDownAndUpAtTheSameInstantAsInputTapSendsThem) {
  const Gesture tap = tap_gesture({540, 1200});
  ASSERT_EQ(tap.size(), 2U);
  EXPECT_EQ(tap[0].action, kActionDown);
  EXPECT_EQ(tap[1].action, kActionUp);
  EXPECT_EQ(tap[0].time_ms, 0);
  EXPECT_EQ(tap[1].time_ms, 0);
  EXPECT_EQ(tap[1].pointers, (std::vector<ui::Point>{{540, 1200}}));
}

TEST(Gesture, ASwipeMovesEveryTenMillisecondsAndEndsWhereAsked) {
  const std::vector<Stroke> finger{{{100, 800}, {100, 200}}};
  const Gesture swipe = stroke_gesture(finger, 300ms);
  ASSERT_EQ(swipe.size(), 1U + 30U + 1U);  // down, 30 moves, up
  EXPECT_EQ(swipe.front().action, kActionDown);
  EXPECT_EQ(swipe.front().pointers[0], (ui::Point{100, 800}));
  for (std::size_t i = 1; i + 1 < swipe.size(); ++i) {
    EXPECT_EQ(swipe[i].action, kActionMove);
    EXPECT_EQ(swipe[i].time_ms, static_cast<std::int32_t>(i * 10));
    EXPECT_LT(swipe[i].pointers[0].y, swipe[i - 1].pointers[0].y);
  }
  EXPECT_EQ(swipe.back().action, kActionUp);
  EXPECT_EQ(swipe.back().time_ms, 300);
  EXPECT_EQ(swipe.back().pointers[0], (ui::Point{100, 200}));
  EXPECT_EQ(gesture_length(swipe), 300ms);
}

TEST(Gesture, APinchPutsTheSecondFingerDownAfterTheFirstAndLiftsItFirst) {
  const Gesture pinch = pinch_gesture({500, 1000}, 100, 400, 200ms);
  ASSERT_GE(pinch.size(), 6U);
  EXPECT_EQ(pinch[0].action, kActionDown);
  EXPECT_EQ(pinch[0].pointers.size(), 1U);
  EXPECT_EQ(masked(pinch[1].action), kActionPointerDown);
  EXPECT_EQ(index_of(pinch[1].action), 1);
  EXPECT_EQ(pinch[1].pointers.size(), 2U);
  EXPECT_EQ(pinch[1].pointers[0], (ui::Point{450, 1000}));
  EXPECT_EQ(pinch[1].pointers[1], (ui::Point{550, 1000}));
  for (std::size_t i = 2; i + 2 < pinch.size(); ++i) {
    EXPECT_EQ(pinch[i].action, kActionMove);
    EXPECT_EQ(pinch[i].pointers.size(), 2U);
  }
  const TouchEvent& lift = pinch[pinch.size() - 2];
  EXPECT_EQ(masked(lift.action), kActionPointerUp);
  EXPECT_EQ(index_of(lift.action), 1);
  EXPECT_EQ(lift.pointers.size(), 2U);
  EXPECT_EQ(lift.pointers[0], (ui::Point{300, 1000}));
  EXPECT_EQ(lift.pointers[1], (ui::Point{700, 1000}));
  EXPECT_EQ(pinch.back().action, kActionUp);
  EXPECT_EQ(pinch.back().pointers.size(), 1U);
}

TEST(Gesture, FingersFollowEverySegmentOfTheirPath) {
  // An L: down, then right; each segment half the time.
  const std::vector<Stroke> finger{{{0, 0}, {0, 100}, {100, 100}}};
  const Gesture g = stroke_gesture(finger, 100ms);
  ASSERT_EQ(g.size(), 12U);
  EXPECT_EQ(g[5].pointers[0], (ui::Point{0, 100}));  // the corner at half time
  EXPECT_EQ(g[10].pointers[0], (ui::Point{100, 100}));
}

TEST(Gesture, LongGesturesKeepAtMostAThousandMoves) {
  const std::vector<Stroke> finger{{{0, 0}, {10, 10}}};
  const Gesture g = stroke_gesture(finger, 60s);
  EXPECT_EQ(g.size(), 1U + kMaxSteps + 1U);
  EXPECT_EQ(g.back().time_ms, 60000);
}

TEST(Gesture, ImpossibleGesturesAreEmpty) {
  const std::vector<Stroke> none;
  EXPECT_TRUE(stroke_gesture(none, 100ms).empty());
  const std::vector<Stroke> eleven(11, Stroke{{1, 1}});
  EXPECT_TRUE(stroke_gesture(eleven, 100ms).empty());
  const std::vector<Stroke> empty_finger{Stroke{}};
  EXPECT_TRUE(stroke_gesture(empty_finger, 100ms).empty());
  const std::vector<Stroke> one{Stroke{{1, 1}}};
  EXPECT_TRUE(stroke_gesture(one, -1ms).empty());
  EXPECT_TRUE(stroke_gesture(one, 60001ms).empty());
  const std::vector<Stroke> ten(10, Stroke{{1, 1}});
  EXPECT_FALSE(stroke_gesture(ten, 0ms).empty());
}

TEST(Gesture, TheRequestIsTheCountThenEachEventBigEndian) {
  const Gesture tap = tap_gesture({0x0102, 0x0304});
  const std::vector<std::int32_t> ints = gesture_ints(tap);
  EXPECT_EQ(ints, (std::vector<std::int32_t>{2, 0, 0, 1, 0x0102, 0x0304, 1, 0, 1, 0x0102, 0x0304}));
  const std::string bytes = helper::encode_gesture(ints);
  ASSERT_EQ(bytes.size(), 5U + 4U * ints.size());
  EXPECT_EQ(bytes.substr(0, 9), std::string("M\0\0\0\x0b\0\0\0\x02", 9));
  EXPECT_EQ(bytes.substr(bytes.size() - 8), std::string("\0\0\x01\x02\0\0\x03\x04", 8));
  const std::vector<std::int32_t> negative{-1};
  EXPECT_EQ(helper::encode_gesture(negative).substr(5), std::string("\xff\xff\xff\xff", 4));
}

TEST(HelperProtocol, LabelLinesBecomeAMapAndBrokenLinesAreSkipped) {
  bool too_many = true;
  const auto labels = helper::decode_labels(
      "com.android.settings\tSettings\nbroken line\n\tno package\ncom.a\t\ncom.b\tB\tC\n"
      "com.android.settings\tlater\ncom.c\tlast",
      too_many);
  EXPECT_FALSE(too_many);
  EXPECT_EQ(labels.size(), 4U);
  EXPECT_EQ(labels.at("com.android.settings"), "Settings");
  EXPECT_EQ(labels.at("com.a"), "");
  EXPECT_EQ(labels.at("com.b"), "B\tC");
  EXPECT_EQ(labels.at("com.c"), "last");
  EXPECT_TRUE(helper::decode_labels("", too_many).empty());
}

TEST(HelperProtocol, AHostileLabelListStopsAtTheLimit) {
  // Tiny lines, as a hostile device would send to make the map outgrow the reply many times.
  std::string reply;
  for (std::size_t i = 0; i <= helper::kMaxLabels; ++i) reply += std::to_string(i) + "\t\n";
  bool too_many = false;
  EXPECT_EQ(helper::decode_labels(reply, too_many).size(), helper::kMaxLabels);
  EXPECT_TRUE(too_many);
  reply.erase(reply.rfind(std::to_string(helper::kMaxLabels)));
  EXPECT_EQ(helper::decode_labels(reply, too_many).size(), helper::kMaxLabels);
  EXPECT_FALSE(too_many);
}

}  // namespace
}  // namespace adbwire::agent
