// Streaming brotli / LZ4 frame / zstd codecs for sync v2 (sync_compression.hpp).
#include "compression/sync_compression.hpp"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "adbwire/protocol/bytes.hpp"
#include "adbwire/protocol/sync.hpp"

namespace adbwire::detail {
namespace {

using protocol::kSyncDataMax;

// Gathers compressed output into kSyncDataMax blocks, so DATA chunks are full.
class Block {
 public:
  Block() : bytes_(kSyncDataMax) {}

  std::uint8_t* free_data() { return bytes_.data() + filled_; }
  std::size_t free_size() const { return bytes_.size() - filled_; }
  void grew_to(std::size_t free_left) { filled_ = bytes_.size() - free_left; }

  // Hands the block to sink when full (or, with flush, when it holds anything).
  bool emit(const SyncSink& sink, bool flush) {
    if (filled_ == 0 || (!flush && filled_ < bytes_.size())) return true;
    const std::size_t n = std::exchange(filled_, 0);
    return sink({bytes_.data(), n});
  }

  // Copies bytes in, handing every full block to sink.
  bool append(std::span<const std::uint8_t> bytes, const SyncSink& sink) {
    while (!bytes.empty()) {
      const std::size_t n = std::min(bytes.size(), free_size());
      std::memcpy(free_data(), bytes.data(), n);
      filled_ += n;
      bytes = bytes.subspan(n);
      if (!emit(sink, false)) return false;
    }
    return true;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t filled_ = 0;
};

// ---- brotli (AOSP: quality 1, default window)

class BrotliCompressor final : public SyncCompressor {
 public:
  BrotliCompressor()
      : SyncCompressor(SyncCodec::brotli),
        state_(BrotliEncoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (state_) BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY, 1);
  }
  ~BrotliCompressor() override {
    if (state_) BrotliEncoderDestroyInstance(state_);
  }

  bool write(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    return run(BROTLI_OPERATION_PROCESS, input, sink);
  }
  bool finish(const SyncSink& sink) override {
    return run(BROTLI_OPERATION_FINISH, {}, sink) && block_.emit(sink, true);
  }

 private:
  bool run(BrotliEncoderOperation op, std::span<const std::uint8_t> input, const SyncSink& sink) {
    if (!state_) return fail("brotli: cannot create an encoder (out of memory)");
    std::size_t available_in = input.size();
    const std::uint8_t* next_in = input.data();
    for (;;) {
      std::size_t available_out = block_.free_size();
      std::uint8_t* next_out = block_.free_data();
      if (!BrotliEncoderCompressStream(state_, op, &available_in, &next_in, &available_out,
                                       &next_out, nullptr)) {
        return fail("brotli: compression failed");
      }
      block_.grew_to(available_out);
      if (!block_.emit(sink, false)) return false;
      if (op == BROTLI_OPERATION_FINISH
              ? BrotliEncoderIsFinished(state_)
              : available_in == 0 && !BrotliEncoderHasMoreOutput(state_)) {
        return true;
      }
    }
  }

  BrotliEncoderState* state_;
  Block block_;
};

class BrotliDecompressor final : public SyncDecompressor {
 public:
  BrotliDecompressor()
      : SyncDecompressor(SyncCodec::brotli),
        state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)),
        out_(kOutputSize) {}
  ~BrotliDecompressor() override {
    if (state_) BrotliDecoderDestroyInstance(state_);
  }

  bool decode_input(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    if (!error_.empty()) return false;
    if (!state_) return fail("brotli: cannot create a decoder (out of memory)");
    std::size_t available_in = input.size();
    const std::uint8_t* next_in = input.data();
    for (;;) {
      if (ended_)
        return available_in == 0 || fail("brotli: data after the end of the compressed stream");
      std::size_t available_out = out_.size();
      std::uint8_t* next_out = out_.data();
      const BrotliDecoderResult result = BrotliDecoderDecompressStream(
          state_, &available_in, &next_in, &available_out, &next_out, nullptr);
      if (result == BROTLI_DECODER_RESULT_ERROR) {
        return fail(std::string("brotli: corrupt compressed data (") +
                    BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)) + ")");
      }
      const std::size_t produced = out_.size() - available_out;
      if (produced > 0 && !emit({out_.data(), produced}, sink)) return false;
      if (result == BROTLI_DECODER_RESULT_SUCCESS) ended_ = true;
      if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) return true;  // all input was used
    }
  }

 private:
  BrotliDecoderState* state_;
  std::vector<std::uint8_t> out_;
};

// ---- LZ4 frame (AOSP: default preferences: 64 KiB linked blocks, no checksums)

constexpr std::size_t kLz4InputMax = 64 * 1024;  // LZ4F_compressBound's step (one block)

class Lz4Compressor final : public SyncCompressor {
 public:
  Lz4Compressor() : SyncCompressor(SyncCodec::lz4) {
    if (LZ4F_isError(LZ4F_createCompressionContext(&context_, LZ4F_VERSION))) context_ = nullptr;
    staging_.resize(
        std::max<std::size_t>(LZ4F_compressBound(kLz4InputMax, nullptr), LZ4F_HEADER_SIZE_MAX));
  }
  ~Lz4Compressor() override {
    if (context_) LZ4F_freeCompressionContext(context_);
  }

  bool write(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    if (!begin(sink)) return false;
    while (!input.empty()) {
      const std::size_t n = std::min(input.size(), kLz4InputMax);
      const std::size_t rc =
          LZ4F_compressUpdate(context_, staging_.data(), staging_.size(), input.data(), n, nullptr);
      if (LZ4F_isError(rc))
        return fail(std::string("lz4: compression failed (") + LZ4F_getErrorName(rc) + ")");
      input = input.subspan(n);
      if (!block_.append({staging_.data(), rc}, sink)) return false;
    }
    return true;
  }

  bool finish(const SyncSink& sink) override {
    if (!begin(sink)) return false;
    const std::size_t rc = LZ4F_compressEnd(context_, staging_.data(), staging_.size(), nullptr);
    if (LZ4F_isError(rc))
      return fail(std::string("lz4: compression failed (") + LZ4F_getErrorName(rc) + ")");
    return block_.append({staging_.data(), rc}, sink) && block_.emit(sink, true);
  }

 private:
  bool begin(const SyncSink& sink) {
    if (!context_) return fail("lz4: cannot create an encoder (out of memory)");
    if (begun_) return true;
    begun_ = true;
    const std::size_t rc = LZ4F_compressBegin(context_, staging_.data(), staging_.size(), nullptr);
    if (LZ4F_isError(rc))
      return fail(std::string("lz4: compression failed (") + LZ4F_getErrorName(rc) + ")");
    return block_.append({staging_.data(), rc}, sink);
  }

  LZ4F_cctx* context_ = nullptr;
  bool begun_ = false;
  std::vector<std::uint8_t> staging_;
  Block block_;
};

class Lz4Decompressor final : public SyncDecompressor {
 public:
  Lz4Decompressor() : SyncDecompressor(SyncCodec::lz4), out_(kOutputSize) {
    if (LZ4F_isError(LZ4F_createDecompressionContext(&context_, LZ4F_VERSION))) context_ = nullptr;
  }
  ~Lz4Decompressor() override {
    if (context_) LZ4F_freeDecompressionContext(context_);
  }

  bool decode_input(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    if (!error_.empty()) return false;
    if (!context_) return fail("lz4: cannot create a decoder (out of memory)");
    for (;;) {
      if (ended_) return input.empty() || fail("lz4: data after the end of the compressed stream");
      std::size_t out_size = out_.size();
      std::size_t in_size = input.size();
      const std::size_t rc =
          LZ4F_decompress(context_, out_.data(), &out_size, input.data(), &in_size, nullptr);
      if (LZ4F_isError(rc))
        return fail(std::string("lz4: corrupt compressed data (") + LZ4F_getErrorName(rc) + ")");
      input = input.subspan(in_size);
      if (out_size > 0 && !emit({out_.data(), out_size}, sink)) return false;
      if (rc == 0) {
        ended_ = true;
        continue;
      }
      if (input.empty() && out_size < out_.size()) return true;
      if (in_size == 0 && out_size == 0) return fail("lz4: the decoder made no progress");
    }
  }

 private:
  LZ4F_dctx* context_ = nullptr;
  std::vector<std::uint8_t> out_;
};

// ---- zstd (AOSP: level 1)

class ZstdCompressor final : public SyncCompressor {
 public:
  ZstdCompressor() : SyncCompressor(SyncCodec::zstd), context_(ZSTD_createCCtx()) {
    if (context_) ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, 1);
  }
  ~ZstdCompressor() override { ZSTD_freeCCtx(context_); }

  bool write(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    return run(ZSTD_e_continue, input, sink);
  }
  bool finish(const SyncSink& sink) override {
    return run(ZSTD_e_end, {}, sink) && block_.emit(sink, true);
  }

 private:
  bool run(ZSTD_EndDirective directive, std::span<const std::uint8_t> input, const SyncSink& sink) {
    if (!context_) return fail("zstd: cannot create an encoder (out of memory)");
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    for (;;) {
      ZSTD_outBuffer out{block_.free_data(), block_.free_size(), 0};
      const std::size_t rc = ZSTD_compressStream2(context_, &out, &in, directive);
      if (ZSTD_isError(rc))
        return fail(std::string("zstd: compression failed (") + ZSTD_getErrorName(rc) + ")");
      block_.grew_to(out.size - out.pos);
      if (!block_.emit(sink, false)) return false;
      if (directive == ZSTD_e_end ? rc == 0 : in.pos == in.size) return true;
    }
  }

  ZSTD_CCtx* context_;
  Block block_;
};

class ZstdDecompressor final : public SyncDecompressor {
 public:
  ZstdDecompressor()
      : SyncDecompressor(SyncCodec::zstd), context_(ZSTD_createDCtx()), out_(kOutputSize) {
    if (context_) ZSTD_DCtx_setParameter(context_, ZSTD_d_windowLogMax, kZstdWindowLogMax);
  }
  ~ZstdDecompressor() override { ZSTD_freeDCtx(context_); }

  bool decode_input(std::span<const std::uint8_t> input, const SyncSink& sink) override {
    if (!error_.empty()) return false;
    if (!context_) return fail("zstd: cannot create a decoder (out of memory)");
    // The frame's magic number is checked before libzstd sees any byte: built with legacy
    // support, it also takes pre-1.0 frames (magic 0xFD2FB521..27), which adbd never sends and
    // which it decodes whole but refuses when cut in two, so a pull's verdict would depend on
    // where the device split its packets.
    if (magic_size_ < magic_.size()) {
      const std::size_t n = std::min(magic_.size() - magic_size_, input.size());
      std::copy_n(input.begin(), n, magic_.begin() + static_cast<std::ptrdiff_t>(magic_size_));
      magic_size_ += n;
      input = input.subspan(n);
      if (magic_size_ < magic_.size()) return true;
      if (protocol::load_le32(magic_.data()) != ZSTD_MAGICNUMBER)
        return fail("zstd: the stream does not start with a zstd frame");
      if (!decode(magic_, sink)) return false;
    }
    return decode(input, sink);
  }

 private:
  bool decode(std::span<const std::uint8_t> input, const SyncSink& sink) {
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    for (;;) {
      if (ended_)
        return in.pos == in.size || fail("zstd: data after the end of the compressed stream");
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      const std::size_t rc = ZSTD_decompressStream(context_, &out, &in);
      if (ZSTD_isError(rc))
        return fail(std::string("zstd: corrupt compressed data (") + ZSTD_getErrorName(rc) + ")");
      if (out.pos > 0 && !sink({out_.data(), out.pos})) return false;
      if (rc == 0) {
        ended_ = true;  // the frame is complete and flushed
        continue;
      }
      if (in.pos == in.size && out.pos < out.size) return true;
    }
  }

  ZSTD_DCtx* context_;
  std::vector<std::uint8_t> out_;
  std::array<std::uint8_t, 4> magic_{};  // the stream's first bytes, until all four came
  std::size_t magic_size_ = 0;
};

}  // namespace

bool SyncCompressor::fail(std::string detail) {
  error_ = std::move(detail);
  return false;
}

bool SyncDecompressor::fail(std::string detail) {
  error_ = std::move(detail);
  return false;
}

bool SyncDecompressor::write(std::span<const std::uint8_t> input, const SyncSink& sink) {
  input_bytes_ += input.size();
  return decode_input(input, sink);
}

bool SyncDecompressor::emit(std::span<const std::uint8_t> output, const SyncSink& sink) {
  output_bytes_ += output.size();
  if (output_bytes_ > kOutputSize && output_bytes_ / kMaxExpansion > input_bytes_) {
    return fail(std::string(sync_codec_name(codec_)) + ": " + std::to_string(input_bytes_) +
                " compressed bytes expand to more than " + std::to_string(output_bytes_) +
                ", over " + std::to_string(kMaxExpansion) +
                " bytes per byte: no encoder adbd uses makes that, a decompression bomb does");
  }
  return sink(output);
}

bool SyncDecompressor::finish() {
  if (!error_.empty()) return false;
  if (!ended_)
    return fail(std::string(sync_codec_name(codec_)) +
                ": the compressed stream ends early (truncated)");
  return true;
}

std::unique_ptr<SyncCompressor> SyncCompressor::make(SyncCodec codec) {
  switch (codec) {
    case SyncCodec::brotli:
      return std::make_unique<BrotliCompressor>();
    case SyncCodec::lz4:
      return std::make_unique<Lz4Compressor>();
    case SyncCodec::zstd:
      return std::make_unique<ZstdCompressor>();
  }
  return nullptr;
}

std::unique_ptr<SyncDecompressor> SyncDecompressor::make(SyncCodec codec) {
  switch (codec) {
    case SyncCodec::brotli:
      return std::make_unique<BrotliDecompressor>();
    case SyncCodec::lz4:
      return std::make_unique<Lz4Decompressor>();
    case SyncCodec::zstd:
      return std::make_unique<ZstdDecompressor>();
  }
  return nullptr;
}

}  // namespace adbwire::detail
