#include "base/port.hpp"

#include "base/number.hpp"

namespace adbwire::detail {

std::optional<std::uint16_t> parse_listen_port(std::string_view text) noexcept {
  return parse_number<std::uint16_t>(text);
}

std::optional<std::uint16_t> parse_port(std::string_view text) noexcept {
  const auto port = parse_listen_port(text);
  if (port == 0) return std::nullopt;
  return port;
}

}  // namespace adbwire::detail
