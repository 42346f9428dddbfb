// Fuzzes the sync v2 decompressors (services/sync_compression.hpp) with what a device could
// send: byte 0 picks the codec (brotli, lz4, zstd), byte 1 where to cut, the rest is the
// compressed stream. Fed whole and cut in two, the output and the verdict must agree, and
// output comes in pieces of at most kOutputSize bytes.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "services/sync_compression.hpp"

namespace {

using adbwire::detail::SyncCodec;
using adbwire::detail::SyncDecompressor;

struct Result {
  bool ok = false;
  std::vector<std::uint8_t> output;
};

Result decode(SyncCodec codec, std::span<const std::uint8_t> stream, std::size_t cut) {
  auto decoder = SyncDecompressor::make(codec);
  Result r;
  const auto sink = [&](std::span<const std::uint8_t> out) {
    if (out.size() > SyncDecompressor::kOutputSize) std::abort();
    // Stop collecting (not decoding) past 16 MiB: a bomb must not exhaust the fuzzer.
    if (r.output.size() < (16u << 20)) r.output.insert(r.output.end(), out.begin(), out.end());
    return true;
  };
  r.ok = decoder->write(stream.first(cut), sink) && decoder->write(stream.subspan(cut), sink) &&
         decoder->finish();
  if (!r.ok && decoder->error().empty()) std::abort();  // a failure always says why
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const SyncCodec codec = static_cast<SyncCodec>(data[0] % 3);
  const std::span<const std::uint8_t> stream(data + 2, size - 2);
  const std::size_t cut = stream.empty() ? 0 : data[1] % (stream.size() + 1);
  const Result whole = decode(codec, stream, stream.size());
  const Result split = decode(codec, stream, cut);
  if (whole.ok != split.ok) std::abort();
  if (whole.ok && whole.output != split.output) std::abort();
  return 0;
}
