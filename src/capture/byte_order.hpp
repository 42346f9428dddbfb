// Explicit little/big-endian loads and stores for the capture formats (no packed-struct casts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace adbwire::capture_detail {

inline std::uint16_t load_u16(const std::uint8_t* p, bool big_endian) noexcept {
  return big_endian ? static_cast<std::uint16_t>(p[0] << 8 | p[1])
                    : static_cast<std::uint16_t>(p[1] << 8 | p[0]);
}

inline std::uint32_t load_u32(const std::uint8_t* p, bool big_endian) noexcept {
  if (big_endian) {
    return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
  }
  return std::uint32_t{p[3]} << 24 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[1]} << 8 | p[0];
}

inline std::uint64_t load_u64(const std::uint8_t* p, bool big_endian) noexcept {
  const std::uint64_t first = load_u32(p, big_endian);
  const std::uint64_t second = load_u32(p + 4, big_endian);
  return big_endian ? (first << 32 | second) : (second << 32 | first);
}

inline std::uint16_t load_be16(const std::uint8_t* p) noexcept { return load_u16(p, true); }
inline std::uint32_t load_be32(const std::uint8_t* p) noexcept { return load_u32(p, true); }
inline std::uint16_t load_le16(const std::uint8_t* p) noexcept { return load_u16(p, false); }
inline std::uint32_t load_le32(const std::uint8_t* p) noexcept { return load_u32(p, false); }
inline std::uint64_t load_le64(const std::uint8_t* p) noexcept { return load_u64(p, false); }

inline void append_le16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

inline void append_le32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void append_le64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void append_be16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

inline void append_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void store_be16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

}  // namespace adbwire::capture_detail
