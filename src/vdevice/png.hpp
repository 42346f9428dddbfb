// A streaming PNG writer for RGBA images, through libspng's progressive encoder: rows are asked
// for one at a time and the file comes out a piece at a time, in bounded memory, so a
// 1080x2400 screenshot never sits whole in memory.
#pragma once

#include <spng.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace adbwire::vdevice {

// Writes one RGBA row (width*4 bytes) of image row y into `row`.
using RowSource = std::function<void(std::uint32_t y, std::span<std::uint8_t> row)>;

// Produces a PNG (8-bit RGBA, no interlace, filter 0 on every row, deflate level 0: what the
// hand-written writer before it sent, at the same size and cost) piece by piece. Not thread
// safe; rows are asked for once each, top to bottom.
class PngStream {
 public:
  // width and height from 1 to 2^31 - 1 (PNG's limits); Error(io_error) when libspng refuses
  // them or runs out of memory, here or in next().
  PngStream(std::uint32_t width, std::uint32_t height, RowSource rows);

  // Appends the next piece to out: the signature and header first, then the image data of
  // about 64 KiB of rows at a time, the last piece ending with IEND. False once everything
  // was produced.
  bool next(std::vector<std::uint8_t>& out);

 private:
  struct ContextFree {
    void operator()(spng_ctx* ctx) const noexcept { spng_ctx_free(ctx); }
  };
  // libspng's stream callback: appends what it writes to *out_.
  static int write(spng_ctx* ctx, void* user, void* data, std::size_t length);
  void check(int rc, const char* what) const;

  std::uint32_t height_;
  RowSource rows_;
  std::unique_ptr<spng_ctx, ContextFree> ctx_;
  std::vector<std::uint8_t> row_;
  std::vector<std::uint8_t>* out_ = nullptr;  // during next() only
  std::uint32_t next_row_ = 0;
  enum class Stage { header, rows, done } stage_ = Stage::header;
};

}  // namespace adbwire::vdevice
