#include "adbwire/protocol/printable.hpp"

#include <cstdint>

namespace adbwire::protocol {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length of the well-formed UTF-8 sequence at text[i] and its code point; 0 when the bytes
// there are not one (overlong forms, surrogates and values past U+10FFFF included).
std::size_t decode_utf8(std::string_view text, std::size_t i, std::uint32_t& code_point) noexcept {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    minimum = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  std::uint32_t value = lead & (0x7Fu >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    value = (value << 6) | (next & 0x3Fu);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
  code_point = value;
  return length;
}

bool acts_on_terminal(std::uint32_t code_point) noexcept {
  return code_point < 0x20 || code_point == 0x7F || (code_point >= 0x80 && code_point <= 0x9F) ||
         (code_point >= 0x202A && code_point <= 0x202E) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

void append_byte_escape(std::string& out, unsigned char byte) {
  switch (byte) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
  }
}

void append_code_point_escape(std::string& out, std::uint32_t code_point) {
  out += "\\u{";
  bool started = false;
  for (int shift = 20; shift >= 0; shift -= 4) {
    const unsigned digit = (code_point >> shift) & 0xF;
    if (digit != 0 || started || shift < 16) {
      out += kHex[digit];
      started = true;
    }
  }
  out += '}';
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  const bool cut = max_bytes != 0 && text.size() > max_bytes;
  if (cut) text = text.substr(0, max_bytes);
  std::string out;
  out.reserve(text.size() + (cut ? 3 : 0));
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code_point = 0;
    const std::size_t length = decode_utf8(text, i, code_point);
    if (length == 0) {
      // A sequence cut by max_bytes is no attack: it just ends early.
      if (cut && text.size() - i < 4) break;
      append_byte_escape(out, static_cast<unsigned char>(text[i]));
      ++i;
    } else if (acts_on_terminal(code_point)) {
      if (length == 1) {
        append_byte_escape(out, static_cast<unsigned char>(code_point));
      } else {
        append_code_point_escape(out, code_point);
      }
      i += length;
    } else {
      out.append(text.data() + i, length);
      i += length;
    }
  }
  if (cut) out += "\xE2\x80\xA6";  // …
  return out;
}

std::string printable_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    std::uint32_t code_point = 0;
    const std::size_t length = decode_utf8(json, i, code_point);
    if (length != 0 && code_point >= 0x20 &&
        (acts_on_terminal(code_point) || code_point == 0x2028 || code_point == 0x2029)) {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code_point >> shift) & 0xF];
      i += length;
    } else {
      const std::size_t n = length == 0 ? 1 : length;
      out.append(json.data() + i, n);
      i += n;
    }
  }
  return out;
}

bool is_printable(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t code_point = 0;
    const std::size_t length = decode_utf8(text, i, code_point);
    if (length == 0 || acts_on_terminal(code_point)) return false;
    i += length;
  }
  return true;
}

}  // namespace adbwire::protocol
