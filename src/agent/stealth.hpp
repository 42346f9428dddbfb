// Human-like input for PageOptions::stealth: where a tap lands inside an element, how long the
// pauses between actions and between keystrokes last, and the duration and path of a swipe, all
// drawn from one seeded generator so a run is reproducible. The distributions are documented
// here and in the README; a test checks samples against them with a fixed seed. Pure: no device.
// Not thread safe (the Page's one caller uses it). Internal.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "adbwire/ui.hpp"

namespace adbwire::agent {

class Stealth {
 public:
  // Pauses are log-normal: exp(N(ln median, sigma)), cut to [low, high].
  struct Pause {
    double median_ms;
    double sigma;
    double low_ms;
    double high_ms;
  };
  // Before each action (a tap, a key, a swipe, typing): median 400 ms.
  static constexpr Pause kActionPause{400, 0.35, 150, 1500};
  // Between two keystrokes of typed text: median 110 ms (about 100 words a minute).
  static constexpr Pause kKeystrokePause{110, 0.30, 40, 400};
  // A tap's point: a normal around the centre with sigma a sixth of the width and height,
  // redrawn while it falls outside the bounds (less an inset of a tenth of each side, at least
  // one pixel) or on an occluder; after kTries draws, the element's clear tap point.
  static constexpr double kTapSpread = 1.0 / 6;
  static constexpr double kTapInset = 0.1;
  static constexpr int kTries = 64;
  // A swipe lasts its nominal time times U(0.85, 1.25), and its path is a quadratic curve whose
  // control point lies off the straight line's midpoint by N(0, 0.06 × length), cut to 0.15 ×
  // length, sideways.
  static constexpr double kDurationLow = 0.85;
  static constexpr double kDurationHigh = 1.25;
  static constexpr double kBend = 0.06;
  static constexpr double kMaxBend = 0.15;

  explicit Stealth(std::uint64_t seed);

  // A point of info.bounds outside every occluder (ElementInfo::occluders), spread over it.
  ui::Point tap_point(const ui::ElementInfo& info);
  std::chrono::milliseconds pause(const Pause& pause);
  std::chrono::milliseconds swipe_duration(std::chrono::milliseconds nominal);
  // The swipe's path from a to b: `points` points (at least 2) along the curve, a first and b
  // last.
  std::vector<ui::Point> swipe_path(ui::Point a, ui::Point b, std::size_t points);

  // U[0, 1) and N(0, 1) from the generator (53-bit uniform, Box-Muller): the same numbers with
  // every standard library, unlike std::normal_distribution.
  double uniform();
  double normal();

 private:
  std::uint64_t next();
  std::uint64_t state_[4];  // xoshiro256**: small, fast, and specified to the bit
  double spare_ = 0;
  bool has_spare_ = false;
};

// A seed from the system's entropy, for a run that gives none.
std::uint64_t random_seed();

}  // namespace adbwire::agent
