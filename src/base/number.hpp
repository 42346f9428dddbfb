// Numbers written as text, read whole: command-line arguments of the virtual device's shell,
// attributes of a uiautomator dump, ports. Internal; any thread.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace adbwire::detail {

// All of text as one number of type T (std::from_chars: decimal digits, a leading '-' only for
// signed and floating types, and for those the usual forms like "2.5", "1e3", "inf"). nullopt
// for anything else: empty, spaces, '+', trailing characters, a value out of T's range.
template <class T>
std::optional<T> parse_number(std::string_view text) noexcept {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace adbwire::detail
