#include "services/property_list.hpp"

namespace adbwire::detail {

std::map<std::string, std::string> parse_property_list(std::string_view out, Failure& failure) {
  std::map<std::string, std::string> props;
  std::size_t at = 0;
  while (at < out.size()) {
    if (out[at] == '\n' || out[at] == '\r') {
      ++at;
      continue;
    }
    const std::size_t key_end = out.find("]: [", at);
    if (out[at] != '[' || key_end == std::string_view::npos) {
      failure.set(errc::parse_error,
                  "getprop printed a line that is not '[key]: [value]' at byte " +
                      std::to_string(at) + ": " + std::string(out.substr(at, 60)));
      return {};
    }
    std::size_t value_end = out.find("]\n", key_end + 4);
    if (value_end == std::string_view::npos) value_end = out.rfind(']');
    if (value_end == std::string_view::npos || value_end < key_end + 4) {
      failure.set(errc::parse_error, "getprop output ends inside the value of " +
                                         std::string(out.substr(at + 1, key_end - at - 1)));
      return {};
    }
    std::string value(out.substr(key_end + 4, value_end - key_end - 4));
    if (!value.empty() && value.back() == '\r') value.pop_back();
    props[std::string(out.substr(at + 1, key_end - at - 1))] = std::move(value);
    at = value_end + 1;
  }
  return props;
}

}  // namespace adbwire::detail
