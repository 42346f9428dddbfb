// The codecs' names, flags and features (sync_compression.hpp), apart from the codecs: a
// program that only names a codec (the CLI's front, asking its daemon to pull) links no codec
// library.
#include "adbwire/protocol/sync.hpp"
#include "compression/sync_compression.hpp"

namespace adbwire::detail {

std::string_view sync_codec_name(SyncCodec codec) noexcept {
  switch (codec) {
    case SyncCodec::brotli:
      return "brotli";
    case SyncCodec::lz4:
      return "lz4";
    case SyncCodec::zstd:
      return "zstd";
  }
  return "?";
}

std::uint32_t sync_codec_flag(SyncCodec codec) noexcept {
  switch (codec) {
    case SyncCodec::brotli:
      return protocol::kSyncFlagBrotli;
    case SyncCodec::lz4:
      return protocol::kSyncFlagLz4;
    case SyncCodec::zstd:
      return protocol::kSyncFlagZstd;
  }
  return protocol::kSyncFlagNone;
}

std::string_view sync_codec_feature(SyncCodec codec) noexcept {
  switch (codec) {
    case SyncCodec::brotli:
      return "sendrecv_v2_brotli";
    case SyncCodec::lz4:
      return "sendrecv_v2_lz4";
    case SyncCodec::zstd:
      return "sendrecv_v2_zstd";
  }
  return "";
}

std::optional<SyncCodec> sync_codec_from_flags(std::uint32_t flags, bool& error) noexcept {
  error = false;
  switch (flags & ~protocol::kSyncFlagDryRun) {
    case protocol::kSyncFlagNone:
      return std::nullopt;
    case protocol::kSyncFlagBrotli:
      return SyncCodec::brotli;
    case protocol::kSyncFlagLz4:
      return SyncCodec::lz4;
    case protocol::kSyncFlagZstd:
      return SyncCodec::zstd;
    default:
      error = true;
      return std::nullopt;
  }
}

}  // namespace adbwire::detail
