#include "base/secret_mask.hpp"

#include <algorithm>

namespace adbwire::detail {
namespace {

std::string xml_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void wipe(std::string& text) {
  // volatile: the stores are not dropped as dead.
  volatile char* bytes = text.data();
  for (std::size_t i = 0; i < text.size(); ++i) bytes[i] = 0;
}

}  // namespace

SecretMask::~SecretMask() {
  for (auto& [value, name] : secrets_) wipe(value);
}

void SecretMask::add(std::string_view name, std::string_view value) {
  if (value.empty()) return;
  for (std::string form : {std::string(value), xml_escaped(value)}) {
    const bool known = std::any_of(secrets_.begin(), secrets_.end(),
                                   [&](const auto& secret) { return secret.first == form; });
    if (!known) secrets_.emplace_back(std::move(form), std::string(name));
  }
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string SecretMask::apply(std::string_view text) const {
  std::string out(text);
  for (const auto& [value, name] : secrets_) {
    const std::string shown = "<secret " + name + ">";
    for (std::size_t at = out.find(value); at != std::string::npos;
         at = out.find(value, at + shown.size())) {
      out.replace(at, value.size(), shown);
    }
  }
  return out;
}

}  // namespace adbwire::detail
