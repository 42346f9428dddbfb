#include "base/port.hpp"

#include <charconv>
#include <system_error>

namespace adbwire::detail {

std::optional<std::uint16_t> parse_listen_port(std::string_view text) noexcept {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

std::optional<std::uint16_t> parse_port(std::string_view text) noexcept {
  const auto port = parse_listen_port(text);
  if (port == 0) return std::nullopt;
  return port;
}

}  // namespace adbwire::detail
