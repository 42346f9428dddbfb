#include "vdevice/png.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "adbwire/error.hpp"

namespace adbwire::vdevice {
namespace {

constexpr std::size_t kPieceBytes = 64 * 1024;

}  // namespace

PngStream::PngStream(std::uint32_t width, std::uint32_t height, RowSource rows)
    : height_(height),
      rows_(std::move(rows)),
      ctx_(spng_ctx_new(SPNG_CTX_ENCODER)),
      row_(std::size_t{width} * 4) {
  if (!ctx_) throw Error(errc::io_error, "PNG encoding failed: out of memory");
  spng_ihdr ihdr{};
  ihdr.width = width;
  ihdr.height = height;
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  check(spng_set_png_stream(ctx_.get(), &PngStream::write, this), "stream");
  check(spng_set_ihdr(ctx_.get(), &ihdr), "header");
  check(spng_set_option(ctx_.get(), SPNG_IMG_COMPRESSION_LEVEL, 0), "compression level");
  check(spng_set_option(ctx_.get(), SPNG_FILTER_CHOICE, SPNG_DISABLE_FILTERING), "filter");
}

int PngStream::write(spng_ctx*, void* user, void* data, std::size_t length) {
  auto* self = static_cast<PngStream*>(user);
  // libspng writes only from inside the calls next() makes; anything else is a bug here.
  if (self->out_ == nullptr) return SPNG_IO_ERROR;
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  self->out_->insert(self->out_->end(), bytes, bytes + length);
  return 0;
}

void PngStream::check(int rc, const char* what) const {
  if (rc != 0) {
    throw Error(errc::io_error,
                std::string("PNG encoding failed (") + what + "): " + spng_strerror(rc));
  }
}

bool PngStream::next(std::vector<std::uint8_t>& out) {
  if (stage_ == Stage::done) return false;
  out_ = &out;
  struct Unset {
    std::vector<std::uint8_t>*& out;
    ~Unset() { out = nullptr; }
  } unset{out_};
  if (stage_ == Stage::header) {
    // Signature and IHDR now; the rows follow through spng_encode_row, then IEND.
    check(spng_encode_image(ctx_.get(), nullptr, 0, SPNG_FMT_PNG,
                            SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE),
          "header");
    stage_ = Stage::rows;
    return true;
  }
  const std::uint32_t rows = static_cast<std::uint32_t>(
      std::max<std::size_t>(1, kPieceBytes / std::max<std::size_t>(1, row_.size())));
  const std::uint32_t end = height_ - next_row_ > rows ? next_row_ + rows : height_;
  for (; next_row_ < end; ++next_row_) {
    rows_(next_row_, row_);
    const int rc = spng_encode_row(ctx_.get(), row_.data(), row_.size());
    // The last row gives SPNG_EOI once the data and IEND are written.
    if (rc == SPNG_EOI) {
      stage_ = Stage::done;
      return true;
    }
    check(rc, "row");
  }
  if (next_row_ == height_)
    throw Error(errc::io_error, "PNG encoding failed: libspng took every row but did not end");
  return true;
}

}  // namespace adbwire::vdevice
