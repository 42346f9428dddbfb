#include "services/device_values.hpp"

#include <charconv>
#include <cstdio>

#include "services/device_command.hpp"

namespace adbwire::detail {

std::string parse_setting_value(std::string_view output) {
  std::string value = trim(output);
  return value == "null" ? std::string() : value;
}

std::chrono::system_clock::time_point parse_epoch_seconds(std::string_view output,
                                                          Failure& failure) {
  const std::string text = trim(output);
  long long seconds = 0;
  const auto [end, parsed] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (text.empty() || parsed != std::errc() || end != text.data() + text.size()) {
    failure.set(errc::parse_error,
                "`date +%s` printed " + quote_output(text) + ", not a number of seconds");
    return {};
  }
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

std::optional<DisplaySize> parse_display_size(std::string_view output) {
  std::optional<DisplaySize> size;
  while (!output.empty()) {
    const std::size_t end = output.find('\n');
    const std::string line(output.substr(0, end));
    output = end == std::string_view::npos ? std::string_view() : output.substr(end + 1);
    const std::size_t colon = line.find(':');
    int width = 0;
    int height = 0;
    if (colon != std::string::npos &&
        std::sscanf(line.c_str() + colon + 1, " %dx%d", &width, &height) == 2)
      size = DisplaySize{width, height};
  }
  return size;
}

}  // namespace adbwire::detail
