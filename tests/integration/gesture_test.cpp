// Touch through the on-device dumper, end to end against the virtual device, which emulates
// its 'M' and 'L' requests (src/vdevice/dumper_app_process.cpp) and refuses an event stream the
// way Android's input dispatcher would: taps and swipes go through the dumper (no `input`
// process), pinch and multi-finger gestures exist only there, a dumper that cannot inject
// hands taps back to `input`, and app labels come from PackageManager as device text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "adbwire/error.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"

namespace adbwire {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> touches(const VirtualDevice& vd) {
  std::vector<std::string> out;
  for (const std::string& e : vd.events())
    if (e.starts_with("dumper touch") || e.starts_with("input ")) out.push_back(e);
  return out;
}

struct Finger {
  int from_x, from_y, to_x, to_y;
};

// The fingers of a "dumper touch N fingers T ms: x,y -> x,y; …" line.
std::vector<Finger> fingers_of(const std::string& line) {
  std::vector<Finger> fingers;
  std::size_t at = line.find(':');
  while (at != std::string::npos) {
    Finger f{};
    if (std::sscanf(line.c_str() + at + 1, " %d,%d -> %d,%d", &f.from_x, &f.from_y, &f.to_x,
                    &f.to_y) != 4)
      break;
    fingers.push_back(f);
    at = line.find(';', at + 1);
  }
  return fingers;
}

class GestureTest : public ::testing::Test {
 protected:
  void SetUp() override { vd_.start(); }

  Page page(PageOptions::Helper mode) {
    PageOptions options;
    options.helper = mode;
    options.helper_timeout = 2s;
    options.on_warning = [this](std::string_view message) { warnings_.emplace_back(message); };
    return Page::connect(vd_.target(), options);
  }

  // The first ref with room for a pinch.
  static const ui::RefInfo& roomy_ref(const ui::Snapshot& snapshot) {
    for (const ui::RefInfo& r : snapshot.refs())
      if (r.bounds.width() >= 200 && r.bounds.height() >= 100) return r;
    throw std::runtime_error("the demo screen has no element big enough to pinch");
  }

  VirtualDevice vd_;
  std::vector<std::string> warnings_;
};

TEST_F(GestureTest, TapsAndSwipesGoThroughTheDumperWithoutAnInputProcess) {
  Page p = page(PageOptions::Helper::on);
  const ui::Snapshot& before = p.snapshot();
  const ui::RefInfo target = before.refs().front();
  const std::string screen = before.to_text();
  p.tap(target.ref);
  p.swipe({100, 800}, {100, 200}, 250ms);
  const std::vector<std::string> seen = touches(vd_);
  ASSERT_EQ(seen.size(), 2U) << testing::PrintToString(seen);
  const ui::Point c = target.bounds.center();
  EXPECT_EQ(seen[0], "dumper touch 1 finger 0 ms: " + std::to_string(c.x) + "," +
                         std::to_string(c.y) + " -> " + std::to_string(c.x) + "," +
                         std::to_string(c.y));
  EXPECT_EQ(seen[1], "dumper touch 1 finger 250 ms: 100,800 -> 100,200");
  EXPECT_TRUE(p.helper_status().input_error.empty());
  EXPECT_TRUE(p.capabilities().has(Capability::multi_touch));
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(GestureTest, ATapThroughTheDumperActsOnTheScreenAsInputTapDoes) {
  Page fast = page(PageOptions::Helper::on);
  const std::string first = fast.snapshot().to_text();
  // The demo's tap regions move the screen graph; the dumper's tap must move it the same way.
  VirtualDevice plain_vd;
  plain_vd.start();
  PageOptions plain_options;
  Page plain = Page::connect(plain_vd.target(), plain_options);
  ASSERT_EQ(plain.snapshot().to_text(), first);
  const std::uint32_t ref = fast.snapshot().refs().back().ref;
  plain.tap(ref);
  fast.tap(ref);
  EXPECT_EQ(fast.snapshot().to_text(), plain.snapshot().to_text());
}

TEST_F(GestureTest, PinchSpreadsOrClosesTwoFingersByTheScale) {
  Page p = page(PageOptions::Helper::on);
  const ui::RefInfo target = roomy_ref(p.snapshot());
  p.pinch(target.ref, 2.0, 200ms);
  p.pinch(target.ref, 0.5);
  const std::vector<std::string> seen = touches(vd_);
  ASSERT_EQ(seen.size(), 2U) << testing::PrintToString(seen);
  EXPECT_TRUE(seen[0].starts_with("dumper touch 2 fingers 200 ms:")) << seen[0];
  EXPECT_TRUE(seen[1].starts_with("dumper touch 2 fingers 300 ms:")) << seen[1];
  const std::vector<Finger> in = fingers_of(seen[0]);
  const std::vector<Finger> out = fingers_of(seen[1]);
  ASSERT_EQ(in.size(), 2U);
  ASSERT_EQ(out.size(), 2U);
  const double in_from = in[1].from_x - in[0].from_x;
  const double in_to = in[1].to_x - in[0].to_x;
  EXPECT_NEAR(in_to / in_from, 2.0, 0.05);
  EXPECT_NEAR((out[1].to_x - out[0].to_x) / double(out[1].from_x - out[0].from_x), 0.5, 0.05);
  // Around the element's centre, inside it, on one horizontal line.
  const ui::Point c = target.bounds.center();
  EXPECT_NEAR((in[0].to_x + in[1].to_x) / 2.0, c.x, 1);
  EXPECT_EQ(in[0].from_y, c.y);
  EXPECT_EQ(in[1].to_y, c.y);
  EXPECT_TRUE(target.bounds.contains({in[0].to_x, in[0].to_y}));
  EXPECT_TRUE(target.bounds.contains({in[1].to_x, in[1].to_y}));
}

TEST_F(GestureTest, PinchAtAPointStaysOnTheScreen) {
  Page p = page(PageOptions::Helper::on);
  p.snapshot();
  p.pinch_at({10, 1000}, 3.0);  // near the left edge: the span shrinks to fit
  const std::vector<std::string> seen = touches(vd_);
  ASSERT_EQ(seen.size(), 1U);
  for (const Finger& f : fingers_of(seen[0])) {
    EXPECT_GE(f.from_x, 0);
    EXPECT_GE(f.to_x, 0);
  }
}

TEST_F(GestureTest, AThreeFingerGestureFollowsEachPath) {
  Page p = page(PageOptions::Helper::on);
  p.snapshot();
  p.gesture(
      {{{100, 900}, {100, 300}}, {{300, 900}, {300, 300}}, {{500, 900}, {500, 600}, {700, 300}}},
      400ms);
  const std::vector<std::string> seen = touches(vd_);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0],
            "dumper touch 3 fingers 400 ms: 100,900 -> 100,300; 300,900 -> 300,300; 500,900 -> "
            "700,300");
}

TEST_F(GestureTest, BadGesturesAreRefusedBeforeAnythingIsSent) {
  Page p = page(PageOptions::Helper::on);
  p.snapshot();
  const auto code_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.code();
    }
    return std::error_code();
  };
  EXPECT_EQ(code_of([&] { p.pinch(1, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.pinch(1, 20.0); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.pinch(1, -2.0); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.pinch(1, 2.0, 61s); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.gesture({}, 100ms); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.gesture({{}}, 100ms); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.gesture({{{1, 1}}}, 61s); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.gesture({{{1, 1}}, {{99999, 1}}}, 100ms); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { p.pinch(999, 2.0); }), errc::not_found);
  EXPECT_TRUE(touches(vd_).empty());
}

TEST_F(GestureTest, WithoutTheDumperPinchIsNotSupportedAndTapsUseInput) {
  Page p = page(PageOptions::Helper::off);
  const ui::Snapshot& s = p.snapshot();
  EXPECT_FALSE(p.capabilities().has(Capability::multi_touch));
  try {
    p.pinch(roomy_ref(s).ref, 2.0);
    FAIL() << "a pinch without the dumper must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_supported);
    EXPECT_NE(std::string(e.what()).find("--helper auto"), std::string::npos) << e.what();
  }
  p.tap(s.refs().front().ref);
  // One finger on a straight line is `input swipe`.
  p.gesture({{{100, 800}, {100, 200}}}, 200ms);
  const std::vector<std::string> seen = touches(vd_);
  ASSERT_EQ(seen.size(), 2U) << testing::PrintToString(seen);
  EXPECT_TRUE(seen[0].starts_with("input tap ")) << seen[0];
  EXPECT_EQ(seen[1], "input swipe 100 800 100 200 200");
}

TEST_F(GestureTest, ADumperThatCannotInjectHandsTapsBackToInputAndSaysWhy) {
  vd_.set_dumper_fault(DumperFault::refuses_input, 0);
  Page p = page(PageOptions::Helper::automatic);
  const ui::Snapshot& s = p.snapshot();
  EXPECT_TRUE(p.helper_status().in_use) << "dumps still come from the dumper";
  p.tap(s.refs().front().ref);
  p.tap(s.refs().front().ref);
  const std::vector<std::string> seen = touches(vd_);
  // Refused at its first event (no trace on the screen): the same tap went through `input`,
  // and the next one went there straight away.
  ASSERT_EQ(seen.size(), 3U) << testing::PrintToString(seen);
  EXPECT_EQ(seen[0], "dumper touch refused at event 0");
  EXPECT_TRUE(seen[1].starts_with("input tap ")) << seen[1];
  EXPECT_EQ(seen[2], seen[1]);
  EXPECT_NE(p.helper_status().input_error.find("INJECT_EVENTS"), std::string::npos)
      << p.helper_status().input_error;
  ASSERT_EQ(warnings_.size(), 1U);
  EXPECT_NE(warnings_[0].find("through `input` from now on"), std::string::npos) << warnings_[0];
  EXPECT_FALSE(p.capabilities().has(Capability::multi_touch));
  try {
    p.pinch(roomy_ref(s).ref, 2.0);
    FAIL() << "a pinch with a dumper that cannot inject must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_supported);
    EXPECT_NE(std::string(e.what()).find("INJECT_EVENTS"), std::string::npos) << e.what();
  }
}

TEST_F(GestureTest, CapabilitiesAskTheDumperWhetherItCanInjectWithoutTouching) {
  Page works = page(PageOptions::Helper::on);
  EXPECT_TRUE(works.capabilities().has(Capability::multi_touch));
  EXPECT_TRUE(touches(vd_).empty()) << "the check must not touch the screen";

  // A phone whose verifier rejected the Gesture class: known before any action, and taps
  // simply use `input`.
  VirtualDevice phone;
  phone.start();
  phone.set_dumper_fault(DumperFault::no_gestures);
  PageOptions options;
  options.helper = PageOptions::Helper::automatic;
  Page rejected = Page::connect(phone.target(), options);
  EXPECT_FALSE(rejected.capabilities().has(Capability::multi_touch));
  EXPECT_NE(rejected.helper_status().input_error.find("VerifyError"), std::string::npos)
      << rejected.helper_status().input_error;
  const ui::Snapshot& s = rejected.snapshot();
  EXPECT_TRUE(rejected.helper_status().in_use) << "snapshots keep the dumper";
  rejected.tap(s.refs().front().ref);
  const std::vector<std::string> seen = touches(phone);
  ASSERT_EQ(seen.size(), 2U) << testing::PrintToString(seen);
  EXPECT_EQ(seen[0], "dumper touch refused at event 0");
  EXPECT_TRUE(seen[1].starts_with("input tap ")) << seen[1];
}

TEST_F(GestureTest, AGestureRefusedHalfwayIsAnErrorAndIsNotRepeated) {
  vd_.set_dumper_fault(DumperFault::refuses_input, 3);
  Page p = page(PageOptions::Helper::on);
  p.snapshot();
  try {
    p.swipe({100, 800}, {100, 200}, 200ms);
    FAIL() << "a gesture refused after some events must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("stopped after 3 of 22 touch events"), std::string::npos)
        << e.what();
  }
  const std::vector<std::string> seen = touches(vd_);
  EXPECT_TRUE(std::none_of(seen.begin(), seen.end(), [](const std::string& e) {
    return e.starts_with("input ");
  })) << "a half-made swipe must not be made again through input";
}

TEST_F(GestureTest, AppLabelsComeFromPackageManagerAsDeviceText) {
  Page p = page(PageOptions::Helper::on);
  vd_.set_app_label("com.example.adbwire.demo", "Demo\tapp\x1b]0;owned\x07");
  const std::map<std::string, std::string> labels = p.app_labels();
  ASSERT_TRUE(labels.contains("com.example.adbwire.demo"));
  // The dumper makes tabs spaces; escapes are the caller's to neutralize (the verbs do).
  EXPECT_EQ(labels.at("com.example.adbwire.demo"), "Demo app\x1b]0;owned\x07");
  EXPECT_TRUE(p.capabilities().has(Capability::app_labels));
}

TEST_F(GestureTest, AppLabelsFailClearly) {
  Page off = page(PageOptions::Helper::off);
  try {
    off.app_labels();
    FAIL() << "labels without the dumper must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_supported);
  }
  vd_.set_dumper_fault(DumperFault::no_labels);
  Page on = page(PageOptions::Helper::on);
  try {
    on.app_labels();
    FAIL() << "labels the dumper could not read must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::command_failed);
    EXPECT_NE(std::string(e.what()).find("Looper.prepare"), std::string::npos) << e.what();
  }
  // The dumper lives on: a snapshot still works.
  EXPECT_FALSE(on.snapshot().refs().empty());
}

}  // namespace
}  // namespace adbwire
