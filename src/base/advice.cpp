#include "base/advice.hpp"

#include <atomic>

namespace adbwire::detail {
namespace {

std::atomic<Audience> g_audience{Audience::cpp_and_cli};

}  // namespace

void set_audience(Audience audience) noexcept {
  g_audience.store(audience, std::memory_order_relaxed);
}

Audience audience() noexcept { return g_audience.load(std::memory_order_relaxed); }

std::string_view advice(std::string_view library_words, std::string_view python_words) noexcept {
  return audience() == Audience::python ? python_words : library_words;
}

}  // namespace adbwire::detail
