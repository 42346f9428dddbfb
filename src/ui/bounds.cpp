#include "ui/bounds.hpp"

#include <charconv>
#include <system_error>

namespace adbwire::ui {
namespace {

bool parse_int(const char*& p, const char* end, std::int32_t& value) noexcept {
  const auto [next, ec] = std::from_chars(p, end, value);
  if (ec != std::errc{}) return false;
  p = next;
  return true;
}

bool expect(const char*& p, const char* end, char c) noexcept {
  if (p == end || *p != c) return false;
  ++p;
  return true;
}

}  // namespace

std::optional<Bounds> parse_bounds(std::string_view text) noexcept {
  const char* p = text.data();
  const char* end = p + text.size();
  Bounds b;
  if (expect(p, end, '[') && parse_int(p, end, b.left) && expect(p, end, ',') &&
      parse_int(p, end, b.top) && expect(p, end, ']') && expect(p, end, '[') &&
      parse_int(p, end, b.right) && expect(p, end, ',') && parse_int(p, end, b.bottom) &&
      expect(p, end, ']') && p == end) {
    return b;
  }
  return std::nullopt;
}

}  // namespace adbwire::ui
