#include "vdevice/png.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace adbwire::vdevice {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

constexpr auto kCrcTable = make_crc_table();
constexpr std::uint8_t kSignature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
// A chunk is length(4) + type(4) + data + crc(4).
constexpr std::size_t kChunkOverhead = 12;
// A stored block header: BFINAL/BTYPE byte, LEN, NLEN.
constexpr std::size_t kStoredHeader = 5;
// zlib: CMF/FLG before the first block, Adler-32 after the last.
constexpr std::size_t kZlibHeader = 2;
constexpr std::size_t kZlibTrailer = 4;

void put_u32_be(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 24));
  out.push_back(static_cast<std::uint8_t>(v >> 16));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

// Reserves the length and writes the type; end_chunk patches the length in and appends the
// CRC once the data follows. Returns where the chunk starts.
std::size_t begin_chunk(std::vector<std::uint8_t>& out, const char (&type)[5]) {
  std::size_t start = out.size();
  put_u32_be(out, 0);
  out.insert(out.end(), type, type + 4);
  return start;
}

void end_chunk(std::vector<std::uint8_t>& out, std::size_t start) {
  auto length = static_cast<std::uint32_t>(out.size() - start - 8);
  out[start] = static_cast<std::uint8_t>(length >> 24);
  out[start + 1] = static_cast<std::uint8_t>(length >> 16);
  out[start + 2] = static_cast<std::uint8_t>(length >> 8);
  out[start + 3] = static_cast<std::uint8_t>(length);
  std::span<const std::uint8_t> typed(out.data() + start + 4, length + 4);
  put_u32_be(out, crc32(typed));
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) noexcept {
  crc = ~crc;
  for (std::uint8_t b : bytes) crc = kCrcTable[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler) noexcept {
  constexpr std::uint32_t kMod = 65521;
  // 5552 is the largest run for which the 32-bit sums cannot overflow before the modulo.
  constexpr std::size_t kRun = 5552;
  std::uint32_t a = adler & 0xffff;
  std::uint32_t b = adler >> 16;
  while (!bytes.empty()) {
    std::size_t n = std::min(bytes.size(), kRun);
    for (std::size_t i = 0; i < n; ++i) {
      a += bytes[i];
      b += a;
    }
    a %= kMod;
    b %= kMod;
    bytes = bytes.subspan(n);
  }
  return (b << 16) | a;
}

PngStream::PngStream(std::uint32_t width, std::uint32_t height, RowSource rows)
    : width_(width),
      height_(height),
      rows_(std::move(rows)),
      raw_size_(static_cast<std::uint64_t>(height) * (1 + static_cast<std::uint64_t>(width) * 4)) {}

std::uint64_t PngStream::size() const noexcept {
  std::uint64_t blocks = raw_size_ == 0 ? 1 : (raw_size_ + kBlockSize - 1) / kBlockSize;
  std::uint64_t zlib = kZlibHeader + blocks * kStoredHeader + raw_size_ + kZlibTrailer;
  // IDAT chunks: one per block; the zlib header rides in the first, the trailer in the last.
  std::uint64_t idat = blocks * kChunkOverhead + zlib;
  std::uint64_t ihdr = kChunkOverhead + 13;
  std::uint64_t iend = kChunkOverhead;
  return sizeof(kSignature) + ihdr + idat + iend;
}

void PngStream::fill_block(std::vector<std::uint8_t>& block, std::size_t size) {
  while (size > 0) {
    if (row_offset_ == row_.size()) {
      row_.assign(1 + static_cast<std::size_t>(width_) * 4, 0);
      rows_(next_row_++, std::span<std::uint8_t>(row_).subspan(1));
      row_offset_ = 0;
    }
    std::size_t n = std::min(size, row_.size() - row_offset_);
    block.insert(block.end(), row_.begin() + static_cast<std::ptrdiff_t>(row_offset_),
                 row_.begin() + static_cast<std::ptrdiff_t>(row_offset_ + n));
    row_offset_ += n;
    size -= n;
  }
}

bool PngStream::next(std::vector<std::uint8_t>& out) {
  switch (stage_) {
    case Stage::header: {
      out.insert(out.end(), std::begin(kSignature), std::end(kSignature));
      std::size_t start = begin_chunk(out, "IHDR");
      put_u32_be(out, width_);
      put_u32_be(out, height_);
      // bit depth 8, colour type 6 (RGBA), deflate, filter method 0, no interlace
      out.insert(out.end(), {8, 6, 0, 0, 0});
      end_chunk(out, start);
      stage_ = Stage::data;
      return true;
    }
    case Stage::data: {
      std::size_t start = begin_chunk(out, "IDAT");
      if (raw_produced_ == 0) {
        // CMF: deflate, 32 KiB window; FLG: no dictionary, check bits make CMF*256+FLG % 31 == 0.
        out.insert(out.end(), {0x78, 0x01});
      }
      auto size =
          static_cast<std::size_t>(std::min<std::uint64_t>(kBlockSize, raw_size_ - raw_produced_));
      bool final_block = raw_produced_ + size == raw_size_;
      out.push_back(final_block ? 1 : 0);
      out.push_back(static_cast<std::uint8_t>(size));
      out.push_back(static_cast<std::uint8_t>(size >> 8));
      out.push_back(static_cast<std::uint8_t>(~size));
      out.push_back(static_cast<std::uint8_t>(~size >> 8));
      std::size_t data_start = out.size();
      fill_block(out, size);
      adler_ = adler32(std::span<const std::uint8_t>(out).subspan(data_start), adler_);
      raw_produced_ += size;
      if (final_block) {
        put_u32_be(out, adler_);
        stage_ = Stage::end;
      }
      end_chunk(out, start);
      return true;
    }
    case Stage::end: {
      end_chunk(out, begin_chunk(out, "IEND"));
      stage_ = Stage::done;
      return true;
    }
    case Stage::done:
      break;
  }
  return false;
}

}  // namespace adbwire::vdevice
