// The values of secrets typed so far (type --secret), and text with each of them replaced by
// "<secret NAME>": what a reply, a saved file or a trajectory shows of a screen that displays
// one. Internal.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace adbwire::detail {

// Not thread safe. Holds the values in memory only.
class SecretMask {
 public:
  SecretMask() = default;
  SecretMask(const SecretMask&) = delete;
  SecretMask& operator=(const SecretMask&) = delete;
  // Clears the values it held.
  ~SecretMask();

  // From now on, apply() hides value (and its XML-escaped form). An empty value hides nothing.
  void add(std::string_view name, std::string_view value);
  // text with every value added replaced by "<secret NAME>", longest values first.
  std::string apply(std::string_view text) const;
  bool empty() const noexcept { return secrets_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> secrets_;  // (value, name)
};

}  // namespace adbwire::detail
