#include "agent/input_commands.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "base/base64.hpp"
#include "base/keycodes.hpp"
#include "services/device_command.hpp"

namespace adbwire::agent {
namespace {

void append_command(std::string& line, std::string_view command) {
  if (!line.empty()) line += " && ";
  line += command;
}

// `input text` for one word without spaces; several commands when the word holds "%s".
void append_word(std::string& line, std::string_view word) {
  while (!word.empty()) {
    std::size_t cut = word.size();
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      if (word[i] == '%' && word[i + 1] == 's') {
        cut = i + 1;
        break;
      }
    }
    append_command(line, "input text " + detail::shell_quote(word.substr(0, cut)));
    word.remove_prefix(cut);
  }
}

}  // namespace

bool needs_unicode_path(std::string_view text) noexcept {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

std::optional<std::string> ascii_type_command(std::string_view text, std::size_t& bad_at) {
  std::string line;
  std::size_t word_start = 0;
  auto flush = [&](std::size_t end) {
    append_word(line, text.substr(word_start, end - word_start));
    word_start = end + 1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    int key = 0;
    if (c == ' ') {
      key = keycodes::kSpace;
    } else if (c == '\n') {
      key = keycodes::kEnter;
    } else if (c == '\t') {
      key = keycodes::kTab;
    } else if (c < 0x20 || c >= 0x7f) {
      bad_at = i;
      return std::nullopt;
    } else {
      continue;
    }
    flush(i);
    append_command(line, "input keyevent " + std::to_string(key));
  }
  flush(text.size());
  return line;
}

std::optional<std::string> key_code(std::string_view name) {
  if (name.empty()) return std::nullopt;
  int number = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (ec == std::errc() && end == name.data() + name.size() && number >= 0)
    return std::to_string(number);
  // Any well-formed KEYCODE_ name goes to the device as is: `input keyevent` knows them all.
  if (name.starts_with("KEYCODE_") && name.size() > 8 &&
      std::all_of(name.begin() + 8, name.end(), [](char c) {
        return std::isupper(static_cast<unsigned char>(c)) ||
               std::isdigit(static_cast<unsigned char>(c)) || c == '_';
      })) {
    return std::string(name);
  }
  if (const std::optional<int> code = keycodes::code_of_short_name(name))
    return std::to_string(*code);
  return std::nullopt;
}

std::string base64(std::string_view bytes) {
  return detail::base64_encode({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

std::size_t code_points(std::string_view text) noexcept {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

}  // namespace adbwire::agent
