#include "ui/escape.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

namespace adbwire::ui {
namespace {

constexpr std::string_view kEllipsis = "…";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c) noexcept { return (c & 0xC0) == 0x80; }

void append_code(std::string& out, std::uint32_t cp) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  out += buf;
}

// Length of the well-formed UTF-8 sequence at s[i] and its code point, or 0 when it is not one.
std::size_t decode(std::string_view s, std::size_t i, std::uint32_t& cp) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  std::uint32_t min = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  cp = c & (0x7Fu >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (!is_continuation(b)) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Code points a terminal acts on that are not C0 controls: C1 controls and the bidirectional
// overrides and isolates (which reorder what is shown: an app's "txt.exe" shown as "exe.txt").
bool acts_on_terminal(std::uint32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// Code points YAML forbids in a stream (C1 controls, U+FFFE, U+FFFF) or reads as a line break
// or byte order mark (NEL U+0085, U+2028, U+2029, U+FEFF), and those a terminal acts on; C0
// controls and DEL are handled with the ASCII escapes.
bool yaml_unsafe(std::uint32_t cp) noexcept {
  return acts_on_terminal(cp) || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE ||
         cp == 0xFFFF;
}

bool is_letter(unsigned char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Words a YAML 1.1 reader takes for a bool or null rather than a string.
bool is_yaml_word(std::string_view s) noexcept {
  constexpr std::array<std::string_view, 9> kWords{"y",     "n",  "yes", "no",  "true",
                                                   "false", "on", "off", "null"};
  for (std::string_view word : kWords) {
    if (s.size() != word.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < s.size() && same; ++i) same = lower(s[i]) == word[i];
    if (same) return true;
  }
  return false;
}

}  // namespace

void append_escaped(std::string& out, std::string_view text, std::size_t max_code_points) {
  std::size_t code_points = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (max_code_points != 0 && code_points++ == max_code_points) {
      out += kEllipsis;
      return;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    std::uint32_t cp = 0;
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    switch (cp) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (cp < 0x20 || cp == 0x7F || yaml_unsafe(cp)) {
          append_code(out, cp);
        } else if (len == 1) {
          out += static_cast<char>(c);
        } else {
          out.append(text.data() + i, len);
        }
    }
    i += len;
  }
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::uint32_t cp = 0;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c < 0x20 || c == 0x7F) {
      append_code(out, c), ++i;
    } else if (const std::size_t len = decode(s, i, cp); len != 0) {
      // Valid JSON raw, but a terminal showing the JSON would act on them.
      if (acts_on_terminal(cp) || cp == 0x2028 || cp == 0x2029) {
        append_code(out, cp);
      } else {
        out.append(s.data() + i, len);
      }
      i += len;
    } else {
      out += kReplacement;
      ++i;
    }
  }
  out += '"';
}

bool is_plain_yaml(std::string_view item) noexcept {
  if (item.empty()) return false;
  const auto first = static_cast<unsigned char>(item.front());
  if (first < 0x80 && !is_letter(first)) return false;
  if (item.back() == ' ' || item.back() == ':') return false;
  if (item.find(": ") != std::string_view::npos || item.find(" #") != std::string_view::npos)
    return false;
  return item.find(' ') != std::string_view::npos || !is_yaml_word(item);
}

void append_yaml_item(std::string& out, std::string_view item) {
  if (is_plain_yaml(item)) {
    out += item;
    return;
  }
  out += '\'';
  for (const char c : item) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
}

std::size_t yaml_item_size(std::string_view item) noexcept {
  if (is_plain_yaml(item)) return item.size();
  std::size_t size = item.size() + 2;
  for (const char c : item) size += c == '\'';
  return size;
}

}  // namespace adbwire::ui
