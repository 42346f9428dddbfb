// Bytes in buffers: text viewed as bytes, and explicit byte order, fixed-width integers read
// from and written to byte buffers, little- or big-endian, one byte at a time (no packed-struct
// casts, no alignment or host-order assumptions). The one place every layer takes these from:
// ADB messages, sync and shell v2 packets, framebuffer headers, pcap files, logcat entries, key
// blobs, PNG chunks.
//
// A load reads exactly its width from `p`, a store writes exactly its width to `p`: the caller
// makes sure that many bytes are there. An append grows the vector by the width. None of them
// keep a pointer or allocate anything else; all are safe to call from any thread on buffers no
// other thread writes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace adbwire::protocol {

// The bytes of text, as the codecs take them: a view, valid as long as text's characters are.
inline std::span<const std::uint8_t> bytes_of(std::string_view text) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// ---- loads: p[0] is the lowest byte (le) or the highest (be).
constexpr std::uint16_t load_le16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}
constexpr std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}
constexpr std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  return std::uint64_t{load_le32(p)} | std::uint64_t{load_le32(p + 4)} << 32;
}
constexpr std::uint16_t load_be16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] << 8 | p[1]);
}
constexpr std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 |
         std::uint32_t{p[3]};
}
constexpr std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  return std::uint64_t{load_be32(p)} << 32 | std::uint64_t{load_be32(p + 4)};
}

// The order chosen at run time, for formats that say which they use (pcap and pcapng files are
// written in the byte order of the machine that wrote them).
constexpr std::uint16_t load_u16(const std::uint8_t* p, bool big_endian) noexcept {
  return big_endian ? load_be16(p) : load_le16(p);
}
constexpr std::uint32_t load_u32(const std::uint8_t* p, bool big_endian) noexcept {
  return big_endian ? load_be32(p) : load_le32(p);
}
constexpr std::uint64_t load_u64(const std::uint8_t* p, bool big_endian) noexcept {
  return big_endian ? load_be64(p) : load_le64(p);
}

// ---- stores into place: p[0..width) is overwritten.
constexpr void store_le16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
constexpr void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
constexpr void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
constexpr void store_be16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
constexpr void store_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

// ---- appends: out grows by the width (std::bad_alloc when it cannot). Byte by
// byte: a range insert of a small array sets off GCC 12's -Wstringop-overflow false positive.
inline void append_le16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  for (int shift = 0; shift < 16; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}
inline void append_le32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}
inline void append_le64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}
inline void append_be16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  for (int shift = 8; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}
inline void append_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

}  // namespace adbwire::protocol
