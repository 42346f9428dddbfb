// Streaming codecs for compressed sync transfers (SND2/RCV2 with kSyncFlagBrotli/Lz4/Zstd):
// exactly the stream formats AOSP's adb uses (client/compression_utils.h): one brotli stream
// (quality 1), one LZ4 frame (default preferences), one zstd frame (level 1) per file, cut
// into DATA chunks of at most kSyncDataMax bytes.
//
// Internal to the adbwire library: these need libbrotlienc/dec, liblz4 and libzstd, so they
// live here and not in protocol/ (standard library only). Used by SyncClient (host side) and
// the virtual device's sync service.
//
// Bounded memory: a compressor holds one output block of kSyncDataMax bytes plus its codec's
// state; a decompressor one output buffer of kOutputSize bytes plus its codec's state (the
// zstd window is capped at 2^kZstdWindowLogMax). Input of any size is fed in pieces and
// output is handed to a sink as it is made: no whole-file buffers. Not thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace adbwire::detail {

enum class SyncCodec : std::uint8_t { brotli, lz4, zstd };

// "brotli", "lz4", "zstd".
std::string_view sync_codec_name(SyncCodec codec) noexcept;
// The SND2/RCV2 flag bit: brotli 1, lz4 2, zstd 4.
std::uint32_t sync_codec_flag(SyncCodec codec) noexcept;
// The feature a device lists when it serves the codec: "sendrecv_v2_zstd", …
std::string_view sync_codec_feature(SyncCodec codec) noexcept;
// The codec named by SND2/RCV2 flags (the dry-run bit ignored): nullopt for none; an
// unknown bit or several codec bits set error to true.
std::optional<SyncCodec> sync_codec_from_flags(std::uint32_t flags, bool& error) noexcept;

// Receives output. Returning false stops the codec call, which then returns false with an
// empty error().
using SyncSink = std::function<bool(std::span<const std::uint8_t>)>;

class SyncCompressor {
 public:
  static std::unique_ptr<SyncCompressor> make(SyncCodec codec);
  virtual ~SyncCompressor() = default;

  // Compresses all of input. Each time kSyncDataMax bytes of compressed output are ready,
  // sink gets them (one full DATA chunk). false: the sink said stop, or the codec failed
  // (error() says why).
  virtual bool write(std::span<const std::uint8_t> input, const SyncSink& sink) = 0;
  // Ends the stream: sink gets the remaining output, in pieces of at most kSyncDataMax
  // bytes (the last one may be shorter; none may be empty). Call once, after the last write.
  virtual bool finish(const SyncSink& sink) = 0;

  SyncCodec codec() const noexcept { return codec_; }
  // "" after a stop asked for by the sink; otherwise what failed, naming the algorithm.
  const std::string& error() const noexcept { return error_; }

 protected:
  explicit SyncCompressor(SyncCodec codec) : codec_(codec) {}
  bool fail(std::string detail);

  SyncCodec codec_;
  std::string error_;
};

class SyncDecompressor {
 public:
  static constexpr std::size_t kOutputSize = 256 * 1024;
  static constexpr int kZstdWindowLogMax = 25;  // 32 MiB: AOSP's level 1 uses at most 2^19
  // Output bytes one input byte may make, over the whole stream (past the first kOutputSize).
  // The most the encoders adbd uses make of real data is about 30,000 (zstd's run-length blocks
  // of a file of zeros; brotli at quality 1 about 5,600, lz4 at most 255); a crafted brotli
  // stream makes millions, so a few bytes of input cannot keep the host busy writing.
  static constexpr std::uint64_t kMaxExpansion = 65536;

  static std::unique_ptr<SyncDecompressor> make(SyncCodec codec);
  virtual ~SyncDecompressor() = default;

  // Decompresses input (a piece of the stream, cut anywhere), handing the output to sink in
  // pieces of at most kOutputSize bytes. false: corrupt data, bytes after the end of the
  // stream, output past kMaxExpansion bytes per input byte, or the sink said stop (then
  // error() is empty).
  bool write(std::span<const std::uint8_t> input, const SyncSink& sink);
  // The sender said the stream is over (DONE): false unless the stream ended exactly.
  bool finish();

  SyncCodec codec() const noexcept { return codec_; }
  const std::string& error() const noexcept { return error_; }

 protected:
  explicit SyncDecompressor(SyncCodec codec) : codec_(codec) {}
  // The codec's part of write(): decodes input, handing each piece of output to emit().
  virtual bool decode_input(std::span<const std::uint8_t> input, const SyncSink& sink) = 0;
  // Hands output to sink, unless it passes kMaxExpansion (then fail()).
  bool emit(std::span<const std::uint8_t> output, const SyncSink& sink);
  bool fail(std::string detail);

  SyncCodec codec_;
  bool ended_ = false;  // the stream's end was decoded
  std::string error_;

 private:
  std::uint64_t input_bytes_ = 0;
  std::uint64_t output_bytes_ = 0;
};

}  // namespace adbwire::detail
