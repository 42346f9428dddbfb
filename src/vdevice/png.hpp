// A streaming PNG writer for RGBA images that needs no zlib: the image data is stored in
// uncompressed ("stored") deflate blocks, so the file is about width*height*4 bytes but
// every byte is produced on demand, a piece at a time, in bounded memory.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace adbwire::vdevice {

// CRC-32 (ISO-HDLC, as PNG chunks use). Pass the previous result to continue a running CRC.
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0) noexcept;

// Adler-32 (zlib's trailer). Pass the previous result to continue; start value is 1.
std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler = 1) noexcept;

// Writes one RGBA row (width*4 bytes) of image row y into `row`.
using RowSource = std::function<void(std::uint32_t y, std::span<std::uint8_t> row)>;

// Produces a PNG (8-bit RGBA, no interlace, filter 0 on every row) piece by piece.
// Not thread safe; rows are asked for once each, top to bottom.
class PngStream {
 public:
  // The largest stored deflate block: one block per IDAT chunk.
  static constexpr std::size_t kBlockSize = 65535;

  PngStream(std::uint32_t width, std::uint32_t height, RowSource rows);

  // Appends the next piece to out: signature + IHDR, then one IDAT chunk per stored block
  // (at most kBlockSize + 22 bytes each), then IEND. False once everything was produced.
  bool next(std::vector<std::uint8_t>& out);

  // Exact size of the whole file in bytes.
  std::uint64_t size() const noexcept;

 private:
  void fill_block(std::vector<std::uint8_t>& block, std::size_t size);

  std::uint32_t width_;
  std::uint32_t height_;
  RowSource rows_;
  std::uint64_t raw_size_;  // filter bytes + pixels: the zlib payload
  std::uint64_t raw_produced_ = 0;
  std::uint32_t adler_ = 1;
  std::vector<std::uint8_t> row_;  // current filtered row (filter byte + pixels)
  std::size_t row_offset_ = 0;     // bytes of row_ already used
  std::uint32_t next_row_ = 0;
  enum class Stage { header, data, end, done } stage_ = Stage::header;
};

}  // namespace adbwire::vdevice
