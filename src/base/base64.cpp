#include "base/base64.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>

namespace adbwire::detail {
namespace {

// EVP_*Block take int lengths: inputs go through in pieces of this size, whole groups each
// (3 bytes per group encoding, 4 characters decoding), so the pieces join seamlessly.
constexpr std::size_t kEncodePiece = std::size_t{3} << 24;
constexpr std::size_t kDecodePiece = std::size_t{4} << 24;

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of each character; -1 for everything outside the alphabet, '=' included.
constexpr std::array<std::int8_t, 256> make_values() {
  std::array<std::int8_t, 256> values{};
  values.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  return values;
}
constexpr std::array<std::int8_t, 256> kValues = make_values();

int value_of(char c) noexcept { return kValues[static_cast<unsigned char>(c)]; }

// EVP_DecodeBlock is lax where we are strict: it skips leading and trailing whitespace, reads
// '=' anywhere as zero bits, and returns the padding's zero bytes as data. So the text is
// checked here first and the padding bytes are cut off after.
bool is_strict(std::string_view text, std::size_t& padding) noexcept {
  if (text.size() % 4 != 0) return false;
  padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  const std::string_view data = text.substr(0, text.size() - padding);
  if (!std::all_of(data.begin(), data.end(), [](char c) { return value_of(c) >= 0; })) return false;
  // The bits after the last data byte: 4 of the last character before "==", 2 before "=".
  if (padding == 2 && (value_of(data.back()) & 0x0f) != 0) return false;
  if (padding == 1 && (value_of(data.back()) & 0x03) != 0) return false;
  return true;
}

}  // namespace

std::string base64_encode(std::span<const std::uint8_t> bytes) {
  // EVP_EncodeBlock ends each piece with a NUL: the next piece writes over it, and the last
  // one lands on the string's own terminator.
  std::string text((bytes.size() + 2) / 3 * 4, '\0');
  auto* out = reinterpret_cast<unsigned char*>(text.data());
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kEncodePiece);
    out += EVP_EncodeBlock(out, bytes.data(), static_cast<int>(n));
    bytes = bytes.subspan(n);
  }
  return text;
}

std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text) {
  std::size_t padding = 0;
  if (!is_strict(text, padding)) return std::nullopt;
  std::vector<std::uint8_t> bytes(text.size() / 4 * 3);
  unsigned char* out = bytes.data();
  while (!text.empty()) {
    const std::size_t n = std::min(text.size(), kDecodePiece);
    const int written = EVP_DecodeBlock(out, reinterpret_cast<const unsigned char*>(text.data()),
                                        static_cast<int>(n));
    if (written < 0) return std::nullopt;
    out += written;
    text.remove_prefix(n);
  }
  bytes.resize(bytes.size() - padding);
  return bytes;
}

}  // namespace adbwire::detail
