#include "agent/stealth.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace adbwire::agent {
namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// splitmix64: spreads one seed over xoshiro's state, as its authors advise.
std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool clear(const ui::ElementInfo& info, ui::Point p) {
  return std::none_of(info.occluders.begin(), info.occluders.end(),
                      [&](const ui::Bounds& o) { return o.contains(p); });
}

}  // namespace

Stealth::Stealth(std::uint64_t seed) {
  for (std::uint64_t& word : state_) word = splitmix(seed);
}

std::uint64_t Stealth::next() {
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double Stealth::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Stealth::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double u = 1.0 - uniform();  // (0, 1]: the log is finite
  const double v = uniform();
  const double r = std::sqrt(-2.0 * std::log(u));
  spare_ = r * std::sin(2 * std::numbers::pi * v);
  has_spare_ = true;
  return r * std::cos(2 * std::numbers::pi * v);
}

ui::Point Stealth::tap_point(const ui::ElementInfo& info) {
  const ui::Bounds& b = info.bounds;
  if (b.empty()) return info.tap_point;
  const auto inset = [](std::int32_t size) {
    return std::max<std::int32_t>(1, static_cast<std::int32_t>(size * kTapInset));
  };
  const std::int32_t dx = inset(b.width());
  const std::int32_t dy = inset(b.height());
  // A sliver too thin for an inset keeps its middle line.
  const std::int32_t left = b.width() > 2 * dx ? b.left + dx : b.left + b.width() / 2;
  const std::int32_t right = b.width() > 2 * dx ? b.right - dx : left + 1;
  const std::int32_t top = b.height() > 2 * dy ? b.top + dy : b.top + b.height() / 2;
  const std::int32_t bottom = b.height() > 2 * dy ? b.bottom - dy : top + 1;
  const double cx = b.left + b.width() / 2.0;
  const double cy = b.top + b.height() / 2.0;
  for (int i = 0; i < kTries; ++i) {
    const double x = std::floor(cx + normal() * b.width() * kTapSpread);
    const double y = std::floor(cy + normal() * b.height() * kTapSpread);
    if (x < left || x >= right || y < top || y >= bottom) continue;
    const ui::Point p{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
    if (clear(info, p)) return p;
  }
  return info.tap_point;
}

std::chrono::milliseconds Stealth::pause(const Pause& pause) {
  const double ms = std::exp(std::log(pause.median_ms) + pause.sigma * normal());
  return std::chrono::milliseconds(std::lround(std::clamp(ms, pause.low_ms, pause.high_ms)));
}

std::chrono::milliseconds Stealth::swipe_duration(std::chrono::milliseconds nominal) {
  const double factor = kDurationLow + (kDurationHigh - kDurationLow) * uniform();
  return std::chrono::milliseconds(std::lround(static_cast<double>(nominal.count()) * factor));
}

std::vector<ui::Point> Stealth::swipe_path(ui::Point a, ui::Point b, std::size_t points) {
  points = std::max<std::size_t>(points, 2);
  const double vx = b.x - a.x;
  const double vy = b.y - a.y;
  const double length = std::hypot(vx, vy);
  const double bend = length == 0 ? 0 : std::clamp(normal() * kBend, -kMaxBend, kMaxBend) * length;
  // The control point: the midpoint moved sideways (along the unit normal) by bend.
  const double nx = length == 0 ? 0 : -vy / length;
  const double ny = length == 0 ? 0 : vx / length;
  const double px = (a.x + b.x) / 2.0 + nx * bend;
  const double py = (a.y + b.y) / 2.0 + ny * bend;
  std::vector<ui::Point> path;
  path.reserve(points);
  for (std::size_t i = 0; i < points; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(points - 1);
    const double u = 1 - t;
    const double x = u * u * a.x + 2 * u * t * px + t * t * b.x;
    const double y = u * u * a.y + 2 * u * t * py + t * t * b.y;
    path.push_back(
        {static_cast<std::int32_t>(std::lround(x)), static_cast<std::int32_t>(std::lround(y))});
  }
  path.front() = a;
  path.back() = b;
  return path;
}

std::uint64_t random_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace adbwire::agent
