// PageOptions::stealth's draws (agent/stealth.hpp): taps land in the element's clear area and
// spread over it, reproducibly for a seed; pauses follow their documented log-normal law
// (checked with a fixed seed, so the test cannot flake); swipes keep their ends and bend a little.
#include "agent/stealth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace adbwire::agent {
namespace {

// A clickable row with two clickable children of its own (each gets a ref): a tap on the row
// must land on neither.
const char* kRow = R"(<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">
 <node index="0" text="Wi-Fi" resource-id="p:id/row" class="android.widget.LinearLayout" package="p" content-desc="" clickable="true" enabled="true" bounds="[0,400][1080,600]">
  <node index="0" text="" resource-id="p:id/toggle" class="android.widget.Switch" package="p" content-desc="Wi-Fi switch" clickable="true" checkable="true" enabled="true" bounds="[880,440][1040,560]" />
  <node index="1" text="" resource-id="p:id/info" class="android.widget.ImageButton" package="p" content-desc="Details" clickable="true" enabled="true" bounds="[40,450][140,550]" />
 </node>
</node></hierarchy>)";

ui::ElementInfo row_info(const ui::Snapshot& snapshot) {
  for (const ui::RefInfo& ref : snapshot.refs()) {
    const ui::ElementInfo info = snapshot.info(ref.node);
    if (info.bounds.top == 400 && info.bounds.width() == 1080) return info;
  }
  ADD_FAILURE() << "no row in the snapshot";
  return {};
}

TEST(Stealth, AThousandTapsLandInTheClearAreaSpreadOverItAndRepeatForASeed) {
  const ui::Snapshot snapshot = ui::parse_dump(kRow);
  const ui::ElementInfo row = row_info(snapshot);
  ASSERT_EQ(row.occluders.size(), 2u) << "the two children with refs";
  Stealth stealth(42);
  std::vector<ui::Point> taps;
  for (int i = 0; i < 1000; ++i) taps.push_back(stealth.tap_point(row));
  double sum_x = 0;
  double sum_y = 0;
  std::set<std::pair<int, int>> cells;  // 4 × 4 cells of the row's inner area
  for (const ui::Point& p : taps) {
    ASSERT_TRUE(row.bounds.contains(p)) << p.x << "," << p.y;
    for (const ui::Bounds& child : row.occluders)
      ASSERT_FALSE(child.contains(p)) << "on a child with its own ref: " << p.x << "," << p.y;
    sum_x += p.x;
    sum_y += p.y;
    cells.insert({(p.x - 108) * 4 / 864, (p.y - 420) * 4 / 160});
  }
  // Spread: centred, not one point, and reaching most of the area between the children.
  EXPECT_NEAR(sum_x / 1000, 540, 30);
  EXPECT_NEAR(sum_y / 1000, 500, 5);
  const auto [min_x, max_x] =
      std::minmax_element(taps.begin(), taps.end(), [](auto& a, auto& b) { return a.x < b.x; });
  EXPECT_LT(min_x->x, 250);
  EXPECT_GT(max_x->x, 830);
  EXPECT_GE(cells.size(), 12u);
  std::set<std::pair<int, int>> distinct;
  for (const ui::Point& p : taps) distinct.insert({p.x, p.y});
  EXPECT_GT(distinct.size(), 900u);
  // The same seed gives the same taps; another seed others.
  Stealth again(42);
  Stealth other(43);
  std::size_t same_as_other = 0;
  for (const ui::Point& p : taps) {
    const ui::Point q = again.tap_point(row);
    ASSERT_EQ(q.x, p.x);
    ASSERT_EQ(q.y, p.y);
    const ui::Point r = other.tap_point(row);
    same_as_other += r.x == p.x && r.y == p.y;
  }
  EXPECT_LT(same_as_other, 10u);
}

TEST(Stealth, AnElementWithoutAClearPointGetsItsClearTapPoint) {
  ui::ElementInfo covered;
  covered.bounds = {0, 0, 100, 100};
  covered.tap_point = {50, 50};
  covered.occluders = {{0, 0, 100, 100}};
  Stealth stealth(1);
  const ui::Point p = stealth.tap_point(covered);
  EXPECT_EQ(p.x, 50);
  EXPECT_EQ(p.y, 50);
}

// The Kolmogorov–Smirnov distance between samples and the cut log-normal's distribution.
double ks_distance(std::vector<double> samples, const Stealth::Pause& pause) {
  std::sort(samples.begin(), samples.end());
  const auto cdf = [&](double ms) {
    if (ms >= pause.high_ms) return 1.0;
    const double z = (std::log(ms) - std::log(pause.median_ms)) / pause.sigma;
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
  };
  double worst = 0;
  const double n = static_cast<double>(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // Samples are whole milliseconds: compare at the rounding's edges.
    const double below = cdf(samples[i] - 0.5);
    const double above = cdf(samples[i] + 0.5);
    worst = std::max(
        {worst, below - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - above});
  }
  return worst;
}

TEST(Stealth, PausesFollowTheirDocumentedLogNormalLaw) {
  for (const Stealth::Pause& pause : {Stealth::kActionPause, Stealth::kKeystrokePause}) {
    Stealth stealth(7);
    std::vector<double> samples;
    double log_sum = 0;
    for (int i = 0; i < 2000; ++i) {
      const double ms = static_cast<double>(stealth.pause(pause).count());
      ASSERT_GE(ms, pause.low_ms);
      ASSERT_LE(ms, pause.high_ms);
      samples.push_back(ms);
      log_sum += std::log(ms);
    }
    // Median and spread as documented; KS against the law at the 1% level (1.63/sqrt(n)).
    std::vector<double> sorted = samples;
    std::nth_element(sorted.begin(), sorted.begin() + 1000, sorted.end());
    EXPECT_NEAR(sorted[1000], pause.median_ms, pause.median_ms * 0.05);
    EXPECT_NEAR(log_sum / 2000, std::log(pause.median_ms), 0.03);
    EXPECT_LT(ks_distance(samples, pause), 1.63 / std::sqrt(2000.0)) << pause.median_ms;
    // And a uniform draw is not one: the test can tell the law from another.
    std::vector<double> flat;
    for (int i = 0; i < 2000; ++i)
      flat.push_back(std::round(pause.low_ms + (pause.high_ms - pause.low_ms) * stealth.uniform()));
    EXPECT_GT(ks_distance(flat, pause), 1.63 / std::sqrt(2000.0));
  }
}

TEST(Stealth, SwipesVaryInLengthAndBendButKeepTheirEnds) {
  Stealth stealth(3);
  std::set<long> durations;
  double widest = 0;
  for (int i = 0; i < 200; ++i) {
    const auto d = stealth.swipe_duration(std::chrono::milliseconds(300));
    ASSERT_GE(d.count(), 255);
    ASSERT_LE(d.count(), 375);
    durations.insert(d.count());
    const std::vector<ui::Point> path = stealth.swipe_path({100, 1000}, {100, 200}, 5);
    ASSERT_EQ(path.size(), 5u);
    EXPECT_EQ(path.front().x, 100);
    EXPECT_EQ(path.front().y, 1000);
    EXPECT_EQ(path.back().x, 100);
    EXPECT_EQ(path.back().y, 200);
    // A vertical swipe bends sideways, by at most 0.15 × 800 / 2 at the middle.
    widest = std::max(widest, std::abs(path[2].x - 100.0));
    ASSERT_LE(std::abs(path[2].x - 100), 61);
  }
  EXPECT_GT(durations.size(), 50u);
  EXPECT_GT(widest, 10);
}

}  // namespace
}  // namespace adbwire::agent
